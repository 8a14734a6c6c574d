-- Double-entry ledger (packages/ledger). Every movement of money is one ledger transaction whose
-- entries sum to zero; balances are the sums of entries. Amounts are signed base units of one
-- (mode, chain, coin): debits positive, credits negative, so the sum of all entries is zero.

create table ledger_accounts (
  id bigserial primary key,
  -- merchant_available / merchant_reserved belong to a merchant; platform_* to the service.
  kind text not null check (kind in (
    'merchant_available', 'merchant_reserved',
    'platform_vault', 'platform_fees', 'platform_refunds',
    'platform_gas_recovered', 'platform_gas_spent', 'platform_gas_wallet'
  )),
  merchant_id text references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  chain text not null check (chain in ('solana', 'sui')),
  coin text not null check (coin in ('USDC', 'USDT', 'SOL', 'SUI')),
  -- Assets and expenses grow with debits; liabilities and revenue with credits.
  normal_side text not null check (normal_side in ('debit', 'credit')),
  -- The sum of this account's entries on its normal side, kept by ledger_entries_apply in the
  -- transaction that inserts them. A cache of the entries, checked against them by the tests.
  balance bigint not null default 0,
  created_at timestamptz not null default now(),
  check ((merchant_id is not null) = (kind like 'merchant_%')),
  -- Overdraft is impossible: a merchant account never goes below zero, whatever runs at once.
  constraint ledger_merchant_not_overdrawn check (kind not like 'merchant_%' or balance >= 0),
  unique (id, mode, chain, coin)
);
create unique index ledger_accounts_key on ledger_accounts (kind, coalesce(merchant_id, ''), mode, chain, coin);
create index ledger_accounts_merchant on ledger_accounts (merchant_id, mode) where merchant_id is not null;

create table ledger_transactions (
  id text primary key,
  -- What caused it, unique: posting the same movement twice (a replayed message) changes nothing.
  reference text not null unique,
  kind text not null check (kind in (
    'payment_credited', 'refund_owed', 'refund_paid',
    'payout_reserved', 'payout_completed', 'payout_released', 'gas_spent'
  )),
  mode text not null check (mode in ('test', 'live')),
  chain text not null check (chain in ('solana', 'sui')),
  coin text not null,
  merchant_id text references merchants (id),
  payment_id uuid,
  payout_id text,
  created_at timestamptz not null default now(),
  unique (id, mode, chain, coin)
);
create index ledger_transactions_payout on ledger_transactions (payout_id) where payout_id is not null;
create index ledger_transactions_payment on ledger_transactions (payment_id) where payment_id is not null;

-- The composite foreign keys keep every entry of a transaction in the transaction's own
-- (mode, chain, coin): test money never meets live money, nor USDC meets SOL.
create table ledger_entries (
  id bigserial primary key,
  transaction_id text not null,
  account_id bigint not null,
  mode text not null,
  chain text not null,
  coin text not null,
  amount bigint not null check (amount <> 0),
  created_at timestamptz not null default now(),
  foreign key (transaction_id, mode, chain, coin) references ledger_transactions (id, mode, chain, coin),
  foreign key (account_id, mode, chain, coin) references ledger_accounts (id, mode, chain, coin)
);
create index ledger_entries_transaction on ledger_entries (transaction_id);
create index ledger_entries_account on ledger_entries (account_id, id);

-- Applying an entry to its account's balance takes the account's row lock, so movements on one
-- balance run one after another, and the overdraft check sees every committed movement.
create function ledger_entries_apply() returns trigger language plpgsql as $$
begin
  update ledger_accounts
    set balance = balance + case when normal_side = 'debit' then new.amount else -new.amount end
    where id = new.account_id;
  return null;
end $$;
create trigger ledger_entries_apply after insert on ledger_entries
  for each row execute function ledger_entries_apply();

-- Entries are facts: corrections are new transactions, never edits.
create function ledger_entries_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'ledger entries are append-only';
end $$;
create trigger ledger_entries_append_only before update or delete on ledger_entries
  for each row execute function ledger_entries_append_only();

-- Checked at commit, once all of a transaction's entries are in: they must sum to zero.
create function ledger_transaction_balanced() returns trigger language plpgsql as $$
declare
  total numeric;
begin
  select sum(amount) into total from ledger_entries where transaction_id = new.transaction_id;
  if total <> 0 then
    raise exception 'ledger transaction % does not balance (sum %)', new.transaction_id, total;
  end if;
  return null;
end $$;
create constraint trigger ledger_transaction_balanced after insert on ledger_entries
  deferrable initially deferred for each row execute function ledger_transaction_balanced();
