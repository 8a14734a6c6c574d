// Search: a payment by its id, a deposit address or a transaction id (#/search?q=&mode=).
import type { Mode, Payment } from "@gateway/contracts";
import { api } from "./api.js";
import { h, listTable, show, statusBadge } from "./dom.js";
import { formatDate, modeName } from "./labels.js";
import { go, hashQuery, modeFromHash } from "./navigation.js";
import type { List } from "./types.js";

/** The search box the home and search pages carry. */
export function searchForm(mode: Mode, value = ""): HTMLFormElement {
  const box = h("input", {
    type: "search",
    name: "q",
    value,
    required: true,
    maxlength: "200",
    placeholder: "Payment id, deposit address or transaction id",
    "aria-label": "Search payments",
  });
  const el = h("form", { class: "search", role: "search" }, box, h("button", { type: "submit" }, "Search"));
  el.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = box.value.trim();
    if (q) go(`#/search?${new URLSearchParams({ q, mode })}`);
  });
  return el;
}

export async function searchPage(): Promise<void> {
  const mode = modeFromHash();
  const q = hashQuery().get("q")?.trim() ?? "";
  if (!q) return show("Search", searchForm(mode));
  const found = await api<List<Payment>>("GET", `/dashboard/api/search?${new URLSearchParams({ q, mode })}`);
  // One match is the payment itself: go there, as a search by id means to.
  if (found.data.length === 1) return go(`#/payments/${encodeURIComponent(found.data[0]!.id)}`);
  const other: Mode = mode === "test" ? "live" : "test";
  show(
    "Search",
    searchForm(mode, q),
    found.data.length === 0
      ? h(
          "p",
          { class: "panel" },
          `No ${modeName(mode).toLowerCase()} payment has that id, deposit address or transaction. `,
          h("a", { href: `#/search?${new URLSearchParams({ q, mode: other })}` }, `Search ${other} payments`),
        )
      : listTable(
          `Payments matching ${q}`,
          ["Amount", "Status", "Created"],
          found.data.map((p) => [
            [
              "Amount",
              h("a", { href: `#/payments/${encodeURIComponent(p.id)}` }, `${p.amount} ${p.currency}`),
            ],
            ["Status", statusBadge(p.status)],
            ["Created", formatDate(p.created_at)],
          ]),
          (i) => ({ paymentId: found.data[i]!.id }),
        ),
  );
}
