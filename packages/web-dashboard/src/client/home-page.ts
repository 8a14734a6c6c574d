// Home: the mode's last 30 days (volume per day, payments by status), its balances, and the
// newest failures that need the merchant.
import { type Mode, PAYMENT_STATUSES, type PaymentStatus } from "@gateway/contracts";
import { api } from "./api.js";
import { h, listTable, show, statusBadge } from "./dom.js";
import { chainName, formatDate } from "./labels.js";
import { modeFilter } from "./mode-pages.js";
import { modeFromHash } from "./navigation.js";
import { searchForm } from "./search-page.js";
import type { DashboardOverview } from "./types.js";
import { volumeChart } from "./volume-chart.js";

/** The API's overview; its statuses' counts typed by the contracts' status list. */
type Overview = Omit<DashboardOverview, "by_status"> & { by_status: Record<PaymentStatus, number> };
type Failure = Overview["failures"][number];

const FAILURE_LINKS: Record<Failure["kind"], (f: Failure, mode: Mode) => string> = {
  payment: (f) => `#/payments/${encodeURIComponent(f.id)}`,
  payout: (_f, mode) => `#/payouts?mode=${mode}`,
  webhook_delivery: (f) => `#/webhooks/${encodeURIComponent(f.id)}`,
};

export async function homePage(): Promise<void> {
  const mode = modeFromHash();
  const o = await api<Overview>("GET", `/dashboard/api/overview?mode=${mode}`);
  const statuses = listTable(
    "Payments created in the last 30 days, by status",
    ["Status", "Payments"],
    PAYMENT_STATUSES.map((s) => [
      ["Status", h("a", { href: `#/payments?mode=${mode}&status=${s}` }, statusBadge(s))],
      ["Payments", String(o.by_status[s] ?? 0)],
    ]),
  );
  const balances =
    o.balances.length === 0
      ? h("p", { class: "panel" }, "No balance yet: completed payments are credited here.")
      : listTable(
          "Balances",
          ["Chain", "Coin", "Available", "Pending payouts"],
          o.balances.map((b) => [
            ["Chain", chainName(b.chain)],
            ["Coin", b.coin],
            ["Available", b.available],
            ["Pending payouts", b.pending],
          ]),
        );
  const failures =
    o.failures.length === 0
      ? h("p", { class: "panel" }, "Nothing failed recently.")
      : h(
          "ul",
          { class: "failures", "aria-label": "Newest failures" },
          o.failures.map((f) =>
            h(
              "li",
              { dataset: { kind: f.kind } },
              h("a", { href: FAILURE_LINKS[f.kind](f, mode) }, f.summary),
              " ",
              h("time", { datetime: f.occurred_at }, formatDate(f.occurred_at)),
            ),
          ),
        );
  show(
    "Home",
    modeFilter("home", mode, "Choose the mode"),
    searchForm(mode),
    h("h2", {}, "Volume, last 30 days"),
    volumeChart(o.volume),
    h("h2", {}, "Payments by status"),
    statuses,
    h("h2", {}, "Balances"),
    balances,
    h("h2", {}, "Needs your attention"),
    failures,
  );
}
