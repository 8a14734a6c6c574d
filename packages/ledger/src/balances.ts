// Reading merchant balances from the ledger.
import type { Sql, TransactionSql } from "@gateway/db";
import type { Chain, Coin, Mode } from "@gateway/domain";

export interface MerchantBalance {
  chain: Chain;
  coin: Coin;
  /** Can be paid out now. */
  available: bigint;
  /** Reserved by payouts that have not completed or failed yet. */
  pending: bigint;
}

/**
 * One row per (chain, coin) the merchant has ever held in `mode`. The account balances are the
 * entry sums kept in the inserting transaction, so this is one indexed read: through the view,
 * since a merchant's credits wait in its accounts' shards until a payout folds them into the row
 * (migration 1600).
 */
export async function merchantBalances(
  sql: Sql | TransactionSql,
  merchantId: string,
  mode: Mode,
): Promise<MerchantBalance[]> {
  const rows = await sql<{ chain: Chain; coin: Coin; available: bigint; pending: bigint }[]>`
    select chain, coin,
      coalesce(sum(balance) filter (where kind = 'merchant_available'), 0)::bigint as available,
      coalesce(sum(balance) filter (where kind = 'merchant_reserved'), 0)::bigint as pending
    from ledger_balances where merchant_id = ${merchantId} and mode = ${mode}
    group by chain, coin order by chain, coin`;
  return rows.map((r) => ({ chain: r.chain, coin: r.coin, available: r.available, pending: r.pending }));
}

export interface LedgerCheck {
  /** Sum of every entry: zero in a sound ledger. */
  total: bigint;
  /** Transactions whose entries do not sum to zero. */
  unbalancedTransactions: string[];
  /** Accounts whose stored balance differs from the sum of their entries. */
  driftedAccounts: bigint[];
}

/** Audits the whole ledger: what the tests assert after every scenario, and an operator can run. */
export async function checkLedger(sql: Sql | TransactionSql): Promise<LedgerCheck> {
  const [total] = await sql<
    { total: bigint }[]
  >`select coalesce(sum(amount), 0)::bigint as total from ledger_entries`;
  const unbalanced = await sql<{ transaction_id: string }[]>`
    select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0`;
  // Through ledger_balances: a platform account's balance is its row's plus its shards'
  // (migration 1600).
  const drifted = await sql<{ id: bigint }[]>`
    select a.id from ledger_balances a
    left join (select account_id, sum(amount) as s from ledger_entries group by account_id) e on e.account_id = a.id
    where a.balance <> coalesce(case when a.normal_side = 'debit' then e.s else -e.s end, 0)`;
  return {
    total: total!.total,
    unbalancedTransactions: unbalanced.map((r) => r.transaction_id),
    driftedAccounts: drifted.map((r) => r.id),
  };
}
