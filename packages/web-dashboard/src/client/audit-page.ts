// The audit log: security-relevant actions, newest first, a page at a time.
import { api } from "./api.js";
import { errorMessage, flash, h, listTable, show } from "./dom.js";
import { formatDate } from "./labels.js";
import type { AuditEntry, List } from "./types.js";

function summary(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

export async function auditPage(): Promise<void> {
  const holder = h("div");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  const entries: AuditEntry[] = [];
  const load = async () => {
    const after = entries.at(-1)?.id;
    const page = await api<List<AuditEntry>>(
      "GET",
      `/audit-log?limit=50${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`,
    );
    entries.push(...page.data);
    more.hidden = !page.has_more;
    holder.replaceChildren(
      listTable(
        "Audit log",
        ["When", "Action", "By", "From", "Details"],
        entries.map((e) => [
          ["When", formatDate(e.created_at)],
          ["Action", e.action],
          ["By", e.actor],
          ["From", `${e.ip} ${e.user_agent}`.trim()],
          ["Details", summary(e.details)],
        ]),
      ),
    );
  };
  more.addEventListener("click", () => load().catch((err) => flash(errorMessage(err), "error")));
  show(
    "Audit log",
    h(
      "p",
      {},
      "Logins, second factors, members and roles, keys, webhooks, payout wallets and payouts. Entries are never changed or removed.",
    ),
    holder,
    more,
  );
  await load();
}
