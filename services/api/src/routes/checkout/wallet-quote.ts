// The quote of a USD payment paid in SOL or SUI: the coin amount its wallet asks, at a price held
// for a while.
import { type PricedCoin, quotedAmount } from "@gateway/domain";
import type { PaymentRow } from "@gateway/payments";
import type { ApiDeps } from "../../deps.js";
import { usdRate } from "../../pricing.js";
import type { DepositWalletRow } from "./checkout-view.js";
import { walletOfChoice } from "./wallet-statements.js";

type QuoteDeps = Pick<ApiDeps, "sql" | "config" | "prices">;

/**
 * The amount and quote of a new wallet for a quoted choice: the current price, for at most the
 * quote's time and never past the payment's expiry.
 */
export function newQuote(
  deps: QuoteDeps,
  row: PaymentRow,
  usdCents: bigint,
  paymentExpiresAt: number,
  coin: PricedCoin,
): [bigint, { rate: bigint; expiresAt: Date }] {
  const rate = usdRate(deps.prices, row.mode, coin);
  const expiresAt = new Date(Math.min(Date.now() + deps.config.QUOTE_TTL_SECONDS * 1000, paymentExpiresAt));
  return [quotedAmount(usdCents, coin, rate), { rate, expiresAt }];
}

/**
 * The existing wallet of a quoted choice: the same quote while it runs, so a repeated call is
 * stable; once it has ended, a fresh quote at the current price on the same address.
 */
export async function requotedWallet(
  deps: QuoteDeps,
  row: PaymentRow,
  usdCents: bigint,
  paymentExpiresAt: number,
  coin: PricedCoin,
  existing: DepositWalletRow,
): Promise<DepositWalletRow> {
  if (existing.quote_expires_at && existing.quote_expires_at.getTime() > Date.now()) return existing;
  const [amountDue, { rate, expiresAt }] = newQuote(deps, row, usdCents, paymentExpiresAt, coin);
  // Only the request that replaces the ended quote writes; a concurrent one reads its result.
  const [requoted] = await deps.sql<DepositWalletRow[]>`
    update deposit_wallets set amount_due = ${amountDue}, quote_rate_micros = ${rate}, quote_expires_at = ${expiresAt}
    where payment_id = ${row.id} and chain = ${existing.chain} and coin = ${coin}
      and quote_expires_at is not distinct from ${existing.quote_expires_at}
    returning chain, coin, address, amount_due, quote_rate_micros, quote_expires_at`;
  // A concurrent request replaced the quote first; the wallet is there, as `existing` was.
  return requoted ?? (await walletOfChoice(deps.sql, row.id, existing.chain, coin))!;
}
