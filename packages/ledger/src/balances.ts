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
  /** Every account's balance, debits positive, summed: zero when the balances hold. */
  total: bigint;
  /** Transfers with an account outside their book (mode, chain, coin) or another merchant's. */
  crossedTransfers: string[];
  /** Accounts whose stored balance differs from the sum of their transfers. */
  driftedAccounts: bigint[];
}

/**
 * Audits the whole ledger: what the tests assert after every scenario, and an operator can run.
 * A transfer balances by its shape; what can go wrong is the cached balances and the accounts.
 */
export async function checkLedger(sql: Sql | TransactionSql): Promise<LedgerCheck> {
  const [total] = await sql<{ total: bigint }[]>`
    select coalesce(sum(case when normal_side = 'debit' then balance else -balance end), 0)::bigint as total
    from ledger_balances`;
  const crossed = await sql<{ id: string }[]>`
    select t.id from ledger_transfers t
    join ledger_accounts d on d.id = t.debit_account
    join ledger_accounts c on c.id = t.credit_account
    where (d.mode, d.chain, d.coin) <> (t.mode, t.chain, t.coin) or (c.mode, c.chain, c.coin) <> (t.mode, t.chain, t.coin)
      or coalesce(d.merchant_id, t.merchant_id) is distinct from t.merchant_id
      or coalesce(c.merchant_id, t.merchant_id) is distinct from t.merchant_id
    order by t.id`;
  // Through ledger_balances: an account's balance is its row's plus its shards' (migration 1600).
  const drifted = await sql<{ id: bigint }[]>`
    select a.id from ledger_balances a
    left join (
      select account, sum(amount) as s from (
        select debit_account as account, amount from ledger_transfers
        union all select credit_account, -amount from ledger_transfers) m
      group by account) e on e.account = a.id
    where a.balance <> coalesce(case when a.normal_side = 'debit' then e.s else -e.s end, 0)
    order by a.id`;
  return {
    total: total!.total,
    crossedTransfers: crossed.map((r) => r.id),
    driftedAccounts: drifted.map((r) => r.id),
  };
}
