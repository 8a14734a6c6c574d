-- Balances that every payment moves, kept in shards (issue 19). Every payment's credit moved the
-- platform's vault and fees accounts of its book, the same two rows for every merchant, and its
-- merchant's available account, the same row for every payment of a flash sale. Each movement
-- took the row's lock until its transaction committed and added a version to the row, so credits
-- queued on those rows one at a time and PostgreSQL spent its CPU on their versions:
-- bench/ledger-bench.ts with 8 callers, 409-568 credits a second at 1.8-2.8 ms of PostgreSQL's CPU
-- a credit; with the shards below 1,093-1,369 a second at 0.81-0.99 ms, for one merchant as for
-- twenty (bench/RESULTS.md, 2026-11-28 17:57).
--
-- A movement that cannot overdraw (any movement of a platform account, which has no overdraft
-- rule; a merchant account's movement up) now goes to one of 16 shard rows, picked by the
-- inserting transaction's id, so concurrent transactions rarely meet on a row and one transaction
-- always meets its own. An account's balance is its row's plus its shards' (the view
-- `ledger_balances`, what readers use).
--
-- A movement that takes from a merchant account is applied to the row, under its lock, with the
-- account's shards folded into it in the same statement (deleted, their sum added): the row then
-- holds the whole balance but for credits not yet committed, which can only add to it, so the
-- overdraft check (ledger_merchant_not_overdrawn, on the row) still sees every committed movement
-- and errs only on the safe side. Concurrent payouts against one balance still run one after
-- another on the row's lock (reservePayout locks it first and reads row and shards together).

create table ledger_balance_shards (
  account_id bigint not null references ledger_accounts (id),
  shard smallint not null check (shard between 0 and 15),
  -- The sum of the account's movements that landed on this shard, on the account's normal side.
  amount bigint not null,
  primary key (account_id, shard)
);

create or replace function ledger_entries_apply() returns trigger language plpgsql as $$
declare
  account record;
  movement bigint;
begin
  select kind, normal_side into account from ledger_accounts where id = new.account_id;
  movement := case when account.normal_side = 'debit' then new.amount else -new.amount end;
  if account.kind like 'merchant_%' and movement < 0 then
    perform 1 from ledger_accounts where id = new.account_id for update;
    with folded as (
      delete from ledger_balance_shards where account_id = new.account_id returning amount
    )
    update ledger_accounts
      set balance = balance + movement + coalesce((select sum(amount) from folded), 0)
      where id = new.account_id;
  else
    insert into ledger_balance_shards as s (account_id, shard, amount)
      values (new.account_id, (txid_current() % 16)::smallint, movement)
      on conflict (account_id, shard) do update set amount = s.amount + excluded.amount;
  end if;
  return null;
end $$;

-- Every account with its whole balance: what to read instead of ledger_accounts.balance.
create view ledger_balances as
  select a.id, a.kind, a.merchant_id, a.mode, a.chain, a.coin, a.normal_side, a.overdrawn_by_restore,
    a.balance + coalesce((select sum(s.amount) from ledger_balance_shards s where s.account_id = a.id), 0)::bigint
      as balance
  from ledger_accounts a;
