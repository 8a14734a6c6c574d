// Exports: the CSV files of payments, balance movements and payouts over a date range.
import type { Mode } from "@gateway/contracts";
import { ApiError } from "./api.js";
import { errorMessage, field, flash, h, show } from "./dom.js";
import { modeFilter } from "./mode-pages.js";
import { modeFromHash } from "./navigation.js";
import { token } from "./session.js";

const FILES = [
  ["payments", "Payments"],
  ["ledger", "Balance movements"],
  ["payouts", "Payouts"],
] as const;

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Fetched with the session (a link cannot carry it), then handed to the browser as a file. */
async function download(name: string, mode: Mode, from: string, to: string): Promise<void> {
  // The range's last day is included: the API's `to` is exclusive.
  const until = day(new Date(new Date(`${to}T00:00:00Z`).getTime() + 86_400_000));
  const query = new URLSearchParams({ mode, from, to: until });
  const response = await fetch(`/exports/${name}.csv?${query}`, {
    headers: { authorization: `Bearer ${token() ?? ""}` },
  });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  const blob = await response.blob();
  // `attachment; filename="<name>"`: the name sits between the quotes that close the header.
  const disposition = response.headers.get("content-disposition") ?? "";
  const at = disposition.indexOf("filename=");
  const filename = at < 0 ? `${name}.csv` : disposition.slice(at + "filename=".length + 1, -1);
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export async function exportsPage(): Promise<void> {
  const mode = modeFromHash();
  const today = new Date();
  const from = h("input", {
    type: "date",
    name: "from",
    required: true,
    value: day(new Date(today.getTime() - 29 * 86_400_000)),
  });
  const to = h("input", { type: "date", name: "to", required: true, value: day(today) });
  const buttons = FILES.map(([name, words]) => {
    const button = h(
      "button",
      { type: "button", dataset: { export: name } },
      `Download ${words.toLowerCase()} (CSV)`,
    );
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await download(name, mode, from.value, to.value);
        flash(`${words} of ${from.value} to ${to.value} downloaded.`, "success");
      } catch (err) {
        flash(errorMessage(err), "error");
      } finally {
        button.disabled = false;
      }
    });
    return button;
  });
  show(
    "Exports",
    h(
      "p",
      {},
      "CSV files (RFC 4180) for your accounting: ids, times, status, amounts, fees, USD values, chains and transaction ids. At most a year at a time.",
    ),
    modeFilter("exports", mode, "Choose the mode"),
    h("div", { class: "filters" }, field("From", from), field("To (included)", to)),
    h("div", { class: "row-actions" }, buttons),
  );
}
