import type { Payment } from "@gateway/contracts";
import {
  type Coin,
  type Currency,
  DECIMALS,
  formatAmount,
  formatMicroUsd,
  isPriced,
  MICROS_PER_USD,
  type PaymentState,
  pow10,
} from "@gateway/domain";
import { type PaymentRow, stateOf } from "./payment-row.js";

/**
 * The payment as merchants see it (contracts' `Payment`, in docs/api-reference.md). Amounts are
 * decimal strings: `amount` and `fee` in the payment currency, on-chain amounts in the coin.
 */
export function toPaymentResource(row: PaymentRow, publicBaseUrl: string): Payment {
  // Decoded once, for every field below.
  const state = stateOf(row);
  const currency = state.currency as Currency;
  const coin = state.wallet?.coin as Coin | undefined;
  const inCoin = (units: bigint) => (coin ? formatAmount(units, coin) : null);
  const refunds = state.refunds.map((r) => ({
    id: r.refundId,
    reason: r.kind,
    amount: formatAmount(r.amount, r.coin),
    coin: r.coin,
    chain: r.chain,
    to: r.to,
    status: r.simulated || r.txid !== null ? ("sent" as const) : ("pending" as const),
    transaction_hash: r.txid,
    simulated: r.simulated,
  }));
  return {
    id: row.id,
    object: "payment",
    amount: formatAmount(state.amount, currency),
    currency,
    status: state.status,
    is_test: state.mode === "test",
    description: row.description,
    redirect_url: row.redirect_url,
    checkout_url: `${publicBaseUrl}/gateway?payment_id=${row.id}`,
    fee: formatAmount(state.fee, currency),
    chain: state.wallet?.chain ?? null,
    coin: coin ?? null,
    deposit_address: state.wallet?.address ?? null,
    amount_due: state.wallet ? inCoin(state.wallet.amountDue) : null,
    amount_received: inCoin(state.amountReceived) ?? "0.00",
    overpaid_amount: state.overpaidAmount > 0n ? inCoin(state.overpaidAmount) : null,
    refunds,
    quote: state.wallet?.quote
      ? {
          rate: formatMicroUsd(state.wallet.quote.rate),
          expires_at: new Date(state.wallet.quote.expiresAt).toISOString(),
        }
      : null,
    ...valuation(state),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * What the payment is worth in USD, as decimal strings of USD (up to six decimals): when it was
 * created (limits), and as booked when it completed (fee). SOL/SUI payments carry the rates.
 */
function valuation(state: PaymentState) {
  const currency = state.currency as Currency;
  const usd = (micros: bigint | null | undefined) => (micros == null ? null : formatMicroUsd(micros));
  const atRate = (rate: bigint | null | undefined) =>
    rate == null ? null : (state.amount * rate) / pow10(DECIMALS[currency]);
  const created = isPriced(currency)
    ? atRate(state.usdRateAtCreation)
    : (state.amount * MICROS_PER_USD) / pow10(DECIMALS[currency]);
  return {
    usd_value_at_creation: usd(created),
    usd_value_at_completion: usd(state.credit?.usdValue),
    usd_rate_at_creation: usd(state.usdRateAtCreation),
    usd_rate_at_completion: usd(state.credit?.usdRate ?? state.usdRateAtCompletion),
  };
}
