// Balances and payouts: the mode's balances per chain and coin, the payout form, and the payouts
// newest first, followed until settlement has finished each one.

import type { Mode, Payout } from "@gateway/contracts";
import { api } from "./api.js";
import { details, errorMessage, flash, h, listTable, show, statusBadge } from "./dom.js";
import { chainName, formatDate, modeName } from "./labels.js";
import { modeFilter, refreshWhile } from "./mode-pages.js";
import { modeFromHash } from "./navigation.js";
import { payoutForm } from "./payout-form.js";
import { can } from "./permissions.js";
import type { ChainBalance, List, PayoutContext } from "./types.js";

function balanceSection(b: ChainBalance, ctx: PayoutContext): HTMLElement {
  const wallet = ctx.wallets.find((w) => w.chain === b.chain);
  return h(
    "section",
    { class: "panel balance", "aria-labelledby": `balance-${b.chain}`, dataset: { chain: b.chain } },
    h("h2", { id: `balance-${b.chain}` }, chainName(b.chain)),
    details([
      // The API sends these two totals as JSON numbers of USD, already rounded to cents.
      ["Available", `${b.available.toFixed(2)} USD`],
      ["Pending payouts", `${b.pending.toFixed(2)} USD`],
      ["Network fee per manual payout", `${b.manual_payout_network_fee} USDC/USDT`],
      ["Payout wallet", wallet ? h("code", {}, wallet.address) : h("a", { href: "#/wallets" }, "Link one")],
    ]),
    b.coins.length === 0
      ? h("p", {}, "No balance on this chain yet.")
      : listTable(
          `${chainName(b.chain)} balance per coin`,
          ["Coin", "Available", "Pending", "Payouts"],
          b.coins.map((c) => [
            ["Coin", c.coin],
            ["Available", c.available],
            ["Pending", c.pending],
            ["Payouts", c.payable ? "yes" : "not offered"],
          ]),
          (i) => ({ coin: b.coins[i]!.coin }),
        ),
  );
}

function payoutRow(p: Payout): [string, Node | string][] {
  return [
    [
      "Amount",
      h(
        "span",
        {},
        `${p.amount} ${p.coin}`,
        p.network_fee !== "0.00" ? h("span", { class: "hint-inline" }, ` (receives ${p.net_amount})`) : null,
      ),
    ],
    [
      "Status",
      h(
        "span",
        {},
        statusBadge(p.status),
        p.kind === "scheduled" ? " scheduled" : null,
        p.failure_reason ? h("span", { class: "warning" }, ` ${p.failure_reason}`) : null,
      ),
    ],
    ["Chain", chainName(p.chain)],
    ["Destination", h("code", {}, p.destination)],
    ["Transaction", p.transaction_hash ? h("code", {}, p.transaction_hash) : p.simulated ? "simulated" : "—"],
    ["Created", h("time", { datetime: p.created_at }, formatDate(p.created_at))],
  ];
}

/** The mode's total available to pay out, then each chain's balances. */
function balanceSections(ctx: PayoutContext): HTMLElement[] {
  return [
    h(
      "p",
      { class: "total" },
      "Available to pay out: ",
      h("strong", { dataset: { total: "" } }, `${ctx.total_available.toFixed(2)} USD`),
      " (USDC and USDT)",
    ),
    ...ctx.balances.map((b) => balanceSection(b, ctx)),
  ];
}

function payoutsList(mode: Mode, payouts: Payout[]): HTMLElement {
  if (payouts.length === 0) return h("p", { class: "panel" }, `No ${mode} payouts yet.`);
  return listTable(
    `${modeName(mode)} payouts, newest first`,
    ["Amount", "Status", "Chain", "Destination", "Transaction", "Created"],
    payouts.map(payoutRow),
    (i) => ({ payoutId: payouts[i]!.id }),
  );
}

export async function payoutsPage(): Promise<void> {
  const mode = modeFromHash();
  let context = await api<PayoutContext>("GET", `/payouts/context?mode=${mode}`);
  const balances = h("div", { class: "balances" });
  const payoutList = h("div");
  const more = h("button", { type: "button", hidden: true }, "Load more");
  const payoutsHeading = h("h2", { tabindex: "-1" }, "Payouts");
  let payouts: Payout[] = [];
  let last: string | null = null;

  /** Reads the balances again; the payout form's hints and messages use the newest ones. */
  async function reloadBalances() {
    context = await api<PayoutContext>("GET", `/payouts/context?mode=${mode}`);
    balances.replaceChildren(...balanceSections(context));
  }

  async function loadPayouts(reset: boolean) {
    const query = new URLSearchParams({ mode, limit: "25" });
    if (!reset && last) query.set("starting_after", last);
    const page = await api<List<Payout>>("GET", `/payouts?${query}`);
    payouts = reset ? page.data : [...payouts, ...page.data];
    last = payouts.at(-1)?.id ?? null;
    more.hidden = !page.has_more;
    payoutList.replaceChildren(payoutsList(mode, payouts));
  }

  /** After a payout, follow it (and the balances) until settlement has finished it. */
  function follow() {
    refreshWhile(
      payoutList,
      () => payouts.some((p) => p.status === "pending" || p.status === "processing"),
      async () => {
        await loadPayouts(true);
        await reloadBalances();
      },
    );
  }

  more.addEventListener("click", () => loadPayouts(false).catch((err) => flash(errorMessage(err), "error")));
  balances.replaceChildren(...balanceSections(context));
  show(
    "Balances & payouts",
    modeFilter("payouts", mode, "Choose the mode"),
    mode === "test"
      ? h("p", {}, "Test mode: balances come from simulated payments and payouts move nothing.")
      : [],
    balances,
    // Viewers read balances and payouts; only roles that may pay out see the form.
    can("POST /payouts")
      ? [
          h("h2", {}, "Pay out"),
          payoutForm(
            mode,
            () => context,
            async () => {
              // The form that had focus is gone: move it to the list where the new payout is.
              payoutsHeading.focus();
              await loadPayouts(true);
              await reloadBalances();
              follow();
            },
          ),
        ]
      : [],
    payoutsHeading,
    payoutList,
    more,
  );
  await loadPayouts(true);
  follow();
}
