// generate-wallet's statements: the new wallet's row, and with it, in one statement, the payment's
// state when the assignment changes nothing else (concurrent requests' in one statement). Apart
// from the route so that bench/pg-floor.ts sends the very statements the route sends.
import { newId, type Sql } from "@gateway/db";
import type { Chain, Coin, Mode, PaymentState } from "@gateway/domain";
import { type PaymentRow, stateColumns } from "@gateway/payments";
import type { DepositWalletRow } from "./checkout-view.js";
import { splitWallet } from "./load-checkout.js";

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

/** A new wallet and the payment's state with it, written only if the row is still at `version`. */
export interface WalletWithState {
  wallet: NewWallet;
  payment: { id: string; version: number };
  state: PaymentState;
}

/** What one write did: the wallet if its insert took, the payment as written if its state did. */
export interface WrittenWallet {
  wallet?: DepositWalletRow;
  row?: PaymentRow;
}

/** What a state sets on its row (`stateColumns`, packages/payments) as the batched statement's arrays carry it. */
function stateArrays(state: PaymentState) {
  const columns = stateColumns(state);
  return {
    state: JSON.stringify(columns.state),
    status: columns.status,
    chain: columns.chain,
    coin: columns.coin,
    quoteExpiresAt: columns.quote_expires_at?.toISOString() ?? null,
  };
}

/**
 * Many wallets' inserts and their payments' new states in one statement (one commit), as arrays:
 * one statement text for any number (docs/operations.md). A state is written only if its row is
 * still at its `version` and its own wallet's insert took; of two writes for one payment, one
 * state at most is written (the other finds no row: its payment changed meanwhile).
 */
export async function insertWalletsWithState(sql: Sql, writes: WalletWithState[]): Promise<WrittenWallet[]> {
  const ids = writes.map(() => newId("dw"));
  const wallets = writes.map((w) => w.wallet);
  const states = writes.map((w) => stateArrays(w.state));
  const found = await sql<
    (PaymentRow & WalletColumns & { written_wallet: string; state_for: string | null })[]
  >`
    with input as (
      select * from unnest(${ids}::text[], ${wallets.map((w) => w.paymentId)}::uuid[],
        ${wallets.map((w) => w.mode)}::text[], ${wallets.map((w) => w.chain)}::text[],
        ${wallets.map((w) => w.coin)}::text[], ${wallets.map((w) => w.derivationIndex.toString())}::bigint[],
        ${wallets.map((w) => w.address)}::text[], ${wallets.map((w) => w.amountDue.toString())}::bigint[],
        ${wallets.map((w) => w.quote?.rate.toString() ?? null) as string[]}::bigint[],
        ${wallets.map((w) => w.quote?.expiresAt.toISOString() ?? null) as string[]}::timestamptz[],
        ${writes.map((w) => w.payment.version)}::int[], ${states.map((s) => s.state)}::text[],
        ${states.map((s) => s.status)}::text[], ${states.map((s) => s.chain) as string[]}::text[],
        ${states.map((s) => s.coin) as string[]}::text[],
        ${states.map((s) => s.quoteExpiresAt) as string[]}::timestamptz[])
      as i(wallet_id, payment_id, mode, chain, coin, derivation_index, address, amount_due, quote_rate_micros,
        quote_expires_at, version, state, status, state_chain, state_coin, state_quote_expires_at)),
    wallet as (
      insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due,
        quote_rate_micros, quote_expires_at)
      select wallet_id, payment_id, mode, chain, coin, derivation_index, address, amount_due, quote_rate_micros,
        quote_expires_at from input
      on conflict (payment_id, chain, coin) do nothing
      returning id, chain, coin, address, amount_due, quote_rate_micros, quote_expires_at),
    payment as (
      update payments p set state = i.state::jsonb, status = i.status, chain = i.state_chain, coin = i.state_coin,
        quote_expires_at = i.state_quote_expires_at, version = p.version + 1, updated_at = now()
      from input i join wallet w on w.id = i.wallet_id
      where p.id = i.payment_id and p.version = i.version
      returning p.*, i.wallet_id as state_for)
    select w.id as written_wallet, p.*, w.chain as wallet_chain, w.coin as wallet_coin,
      w.address as wallet_address, w.amount_due as wallet_amount_due,
      w.quote_rate_micros as wallet_quote_rate_micros, w.quote_expires_at as wallet_quote_expires_at
    from wallet w left join payment p on p.state_for = w.id`;
  const byWallet = new Map(
    found.map(({ written_wallet, state_for: _, ...columns }) => {
      const { row, wallet } = splitWallet(columns);
      return [written_wallet, { wallet, row: row.id === null ? undefined : row }];
    }),
  );
  return ids.map((id) => byWallet.get(id) ?? {});
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
