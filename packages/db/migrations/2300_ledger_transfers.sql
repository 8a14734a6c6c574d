-- The ledger as two-legged transfers (issue 45, docs/write-path.md). A transfer moves one amount
-- from one account (debited) to another (credited), so it balances by its shape: the per-entry
-- balance trigger and the deferred sum check of 0500 go. A movement of three accounts (a payment's
-- credit and its fee, a payout and its network fee) is a first transfer and transfers linked to it.
-- Balances stay where 1600 keeps them (the account's row plus its shards), now written by the
-- posting statement itself: one upsert per account and batch (packages/ledger, ledger.ts).

create table ledger_transfers (
  id text primary key,
  -- The movement's cause. Unique on a movement's first transfer: a replayed post inserts nothing,
  -- and its linked transfers are inserted only with a first transfer that was.
  reference text not null,
  kind text not null check (kind in (
    'payment_credited', 'refund_owed', 'refund_paid',
    'payout_reserved', 'payout_completed', 'payout_released', 'gas_spent',
    'suspense_received', 'suspense_paid'
  )),
  mode text not null check (mode in ('test', 'live')),
  chain text not null check (chain in ('solana', 'sui')),
  coin text not null,
  -- No foreign keys: each took a share lock on rows every payment shares (the vault's, the
  -- merchant's). The accounts come from the book in packages/ledger; checkLedger verifies them.
  merchant_id text,
  payment_id uuid,
  payout_id text,
  debit_account bigint not null,
  credit_account bigint not null,
  amount bigint not null check (amount > 0),
  -- The movement's first transfer; null on the first itself.
  linked_to text,
  -- On the first transfer of a payment's credit: the USD value booked and the rate used.
  usd_value_micros bigint,
  usd_rate_micros bigint,
  created_at timestamptz not null default now(),
  check (debit_account <> credit_account)
);
create unique index ledger_transfers_reference on ledger_transfers (reference) where linked_to is null;
create index ledger_transfers_payment on ledger_transfers (payment_id) where payment_id is not null;
create index ledger_transfers_payout on ledger_transfers (payout_id) where payout_id is not null;
-- The merchant's export reads its movements by time; every transfer on a merchant's account names it.
create index ledger_transfers_merchant on ledger_transfers (merchant_id, created_at) where merchant_id is not null;

-- Transfers are facts: corrections are new transfers, never edits. One function for every
-- append-only table, named in its message; the audit log's triggers move to it.
create function append_only() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'insufficient_privilege';
end $$;
create trigger ledger_transfers_append_only before update or delete on ledger_transfers
  for each statement execute function append_only();
drop trigger audit_log_append_only on audit_log;
drop trigger audit_log_no_truncate on audit_log;
create trigger audit_log_append_only before update or delete on audit_log
  for each row execute function append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function append_only();
drop function audit_log_append_only();

-- Every transaction had one entry on one side and one or more on the other (a single debit and
-- its credits, or debits and a single credit): each entry of the larger side becomes a transfer
-- with the single one, in entry order. The first keeps the transaction's id.
do $$
begin
  if exists (
    select 1 from ledger_entries group by transaction_id
    having count(*) filter (where amount > 0) > 1 and count(*) filter (where amount < 0) > 1
  ) then
    raise exception 'a ledger transaction with several debits and several credits cannot become transfers';
  end if;
end $$;

insert into ledger_transfers (id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id,
  debit_account, credit_account, amount, linked_to, usd_value_micros, usd_rate_micros, created_at)
with sides as (
  select e.*, count(*) filter (where e.amount > 0) over (partition by e.transaction_id) as debits
  from ledger_entries e
),
single as (
  -- The side with one entry: the debit when there is one debit, else the one credit.
  select distinct on (transaction_id) transaction_id, account_id
  from sides
  where (debits = 1 and amount > 0) or (debits > 1 and amount < 0)
  order by transaction_id
),
legs as (
  select s.transaction_id, s.id, s.account_id, abs(s.amount) as amount, s.amount > 0 as is_debit,
    row_number() over (partition by s.transaction_id order by s.id) as n
  from sides s
  where (s.debits = 1 and s.amount < 0) or (s.debits > 1 and s.amount > 0)
)
select case when l.n = 1 then t.id else t.id || '.' || l.n end, t.reference, t.kind, t.mode, t.chain, t.coin,
  t.merchant_id, t.payment_id, t.payout_id,
  case when l.is_debit then l.account_id else o.account_id end,
  case when l.is_debit then o.account_id else l.account_id end,
  l.amount, case when l.n = 1 then null else t.id end,
  case when l.n = 1 then t.usd_value_micros end, case when l.n = 1 then t.usd_rate_micros end, t.created_at
from legs l
join single o on o.transaction_id = l.transaction_id
join ledger_transactions t on t.id = l.transaction_id
order by t.created_at, t.id, l.n;

drop table ledger_entries;
drop table ledger_transactions;
drop function ledger_entries_apply();
drop function ledger_entries_append_only();
drop function ledger_transaction_balanced();
