import { CHAINS, formatAmount } from "@gateway/domain";
import { merchantBalances } from "@gateway/ledger";
import { getPayoutSchedule, MANUAL_PAYOUT_NETWORK_FEE, PAYOUT_COINS, payoutWallets } from "@gateway/payouts";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { PayoutContextSchema } from "../../openapi/resources.js";
import { payoutModeQuery } from "./list-payouts.js";
import { toScheduleResource } from "./payout-schedule.js";

/** Stablecoin amounts as JSON numbers (seed 2.2); exact for every balance below 2^53 base units. */
const asNumber = (units: bigint) => Number(formatAmount(units, "USDC"));

export const payoutContextOperation = defineOperation({
  method: "get",
  path: "/payouts/context",
  operationId: "getPayoutContext",
  summary: "Balances per chain (and per coin), linked payout wallets and the schedule",
  auth: "bearer",
  query: z.object({ mode: payoutModeQuery }),
  responses: { 200: PayoutContextSchema },
});

/**
 * `GET /payouts/context?mode=live|test`: the seed's shape (total_available, balances[] per chain,
 * wallets[]) with, per chain, each coin's exact available and pending amounts as strings. The
 * numbers count USDC and USDT (1:1 with USD), the coins payouts are made in; SOL and SUI
 * balances appear in `coins` only.
 */
export function payoutContext({ sql }: Pick<ApiDeps, "sql">): Handler<typeof payoutContextOperation> {
  return async ({ query }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const mode = query.mode ?? "live";
    const [balances, wallets, schedule] = await Promise.all([
      merchantBalances(sql, merchantId, mode),
      payoutWallets(sql, merchantId),
      getPayoutSchedule(sql, { merchantId, mode }),
    ]);
    const payable = (coin: string) => (PAYOUT_COINS as readonly string[]).includes(coin);
    let total = 0n;
    const perChain = CHAINS.map((chain) => {
      const rows = balances.filter((b) => b.chain === chain);
      const stable = rows.filter((b) => payable(b.coin));
      const available = stable.reduce((s, b) => s + b.available, 0n);
      const pending = stable.reduce((s, b) => s + b.pending, 0n);
      total += available;
      return {
        chain,
        available: asNumber(available),
        pending: asNumber(pending),
        coins: rows.map((b) => ({
          coin: b.coin,
          available: formatAmount(b.available, b.coin),
          pending: formatAmount(b.pending, b.coin),
          payable: payable(b.coin),
        })),
        manual_payout_network_fee: formatAmount(MANUAL_PAYOUT_NETWORK_FEE[chain], "USDC"),
      };
    });
    return {
      object: "payout_context",
      mode,
      total_available: asNumber(total),
      balances: perChain,
      wallets: wallets.map((w) => ({ chain: w.chain, address: w.address })),
      schedule: schedule ? toScheduleResource(schedule) : null,
    };
  };
}
