// The on-chain transactions a payment's state records, for exports and the dashboard's timeline.
import type { Chain } from "@gateway/contracts";
import { type Coin, formatAmount, type PaymentState } from "@gateway/domain";

export type PaymentTransactionKind = "deposit" | "sweep" | "refund";

export interface PaymentTransaction {
  kind: PaymentTransactionKind;
  chain: Chain;
  /** The transaction's signature (Solana) or digest (Sui). */
  txid: string;
  coin: Coin;
  /** Decimal in `coin`; null for a sweep (it moves what the deposits brought). */
  amount: string | null;
}

/**
 * Deposits (from their transfer ids, `<chain>:<txid>:<index>`), then the sweep, then sent refunds.
 * Simulated test-mode movements have no transaction and are left out.
 */
export function paymentTransactions(state: PaymentState): PaymentTransaction[] {
  const out: PaymentTransaction[] = [];
  for (const t of state.transfers) {
    if (t.status === "dropped") continue;
    const [chain, txid] = t.transferId.split(":");
    if (!txid || (chain !== "solana" && chain !== "sui")) continue;
    out.push({ kind: "deposit", chain, txid, coin: t.coin, amount: formatAmount(t.amount, t.coin) });
  }
  if (state.sweepTxid && state.wallet) {
    const { chain, coin } = state.wallet;
    out.push({ kind: "sweep", chain, txid: state.sweepTxid, coin, amount: null });
  }
  for (const r of state.refunds) {
    if (r.txid === null) continue;
    out.push({
      kind: "refund",
      chain: r.chain,
      txid: r.txid,
      coin: r.coin,
      amount: formatAmount(r.amount, r.coin),
    });
  }
  return out;
}
