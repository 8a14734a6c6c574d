// generate-wallet's statements: the new wallet's row, and with it, in one statement, the payment's
// state when the assignment changes nothing else. Apart from the route so that
// bench/pg-floor.ts sends the very statements the route sends.
import { newId, type Sql } from "@gateway/db";
import type { Chain, Coin, Mode, PaymentState } from "@gateway/domain";
import { type PaymentRow, stateAssignments } from "@gateway/payments";
import type { DepositWalletRow } from "./checkout-view.js";

/** A deposit wallet's columns next to the payment's (all null when there is none). */
export interface WalletColumns {
  wallet_chain: Chain | null;
  wallet_coin: Coin | null;
  wallet_address: string | null;
  wallet_amount_due: bigint | null;
  wallet_quote_rate_micros: bigint | null;
  wallet_quote_expires_at: Date | null;
}

export interface NewWallet {
  paymentId: string;
  mode: Mode;
  chain: Chain;
  coin: Coin;
  derivationIndex: number | bigint;
  address: string;
  amountDue: bigint;
  quote: { rate: bigint; expiresAt: Date } | null;
}

/** The wallet's insert; nothing when the payment has a wallet for that choice already. */
export function insertWallet(sql: Sql, wallet: NewWallet) {
  return sql<DepositWalletRow[]>`
    insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due,
      quote_rate_micros, quote_expires_at)
    values (${newId("dw")}, ${wallet.paymentId}, ${wallet.mode}, ${wallet.chain}, ${wallet.coin},
      ${wallet.derivationIndex}, ${wallet.address}, ${wallet.amountDue}, ${wallet.quote?.rate ?? null},
      ${wallet.quote?.expiresAt ?? null})
    on conflict (payment_id, chain, coin) do nothing
    returning chain, coin, address, amount_due, quote_rate_micros, quote_expires_at`;
}

/**
 * The wallet's insert and the payment's new state in one statement: the state only if the row is
 * still at `version` and the insert took. Answers the wallet's columns beside the payment's (the
 * payment's all null when its update did not take), or no row when the insert did not take.
 */
export function insertWalletWithState(
  sql: Sql,
  wallet: NewWallet,
  payment: { id: string; version: number },
  state: PaymentState,
) {
  return sql<(PaymentRow & WalletColumns)[]>`
    with wallet as (${insertWallet(sql, wallet)}),
    payment as (
      update payments set ${stateAssignments(sql, state)}
      where id = ${payment.id} and version = ${payment.version} and exists (select 1 from wallet)
      returning *)
    select p.*, w.chain as wallet_chain, w.coin as wallet_coin, w.address as wallet_address,
      w.amount_due as wallet_amount_due, w.quote_rate_micros as wallet_quote_rate_micros,
      w.quote_expires_at as wallet_quote_expires_at
    from wallet w left join payment p on true`;
}

/** The payment's wallet of a chain and coin, if it has one. */
export async function walletOfChoice(
  sql: Sql,
  paymentId: string,
  chain: Chain,
  coin: Coin,
): Promise<DepositWalletRow | undefined> {
  const [wallet] = await sql<DepositWalletRow[]>`
    select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets where payment_id = ${paymentId} and chain = ${chain} and coin = ${coin}`;
  return wallet;
}
