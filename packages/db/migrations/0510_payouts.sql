-- Merchant payouts (services/api/src/routes/payouts, services/settlement/src/payouts.ts) and the
-- daily payout schedule. The money side lives in the ledger; these rows are the payout records.

create table payouts (
  id text primary key,
  merchant_id text not null references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  chain text not null check (chain in ('solana', 'sui')),
  coin text not null check (coin in ('USDC', 'USDT')),
  -- What leaves the merchant's balance, in coin base units; network_fee of it pays the gas and
  -- the rest reaches the destination.
  amount bigint not null check (amount > 0),
  network_fee bigint not null default 0 check (network_fee >= 0 and network_fee < amount),
  destination text not null,
  kind text not null check (kind in ('manual', 'scheduled')),
  status text not null check (status in ('pending', 'processing', 'completed', 'failed')),
  -- Test payouts move nothing.
  simulated boolean not null,
  txid text,
  failure_reason text,
  -- The API's signed approval of the payout intent (key id and base64 signature), for the signer.
  approval jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index payouts_merchant_list on payouts (merchant_id, mode, created_at desc, id desc);
create index payouts_open on payouts (created_at) where status in ('pending', 'processing');

-- One schedule per merchant and mode. `next_run_at` is the durable timer: any settlement replica
-- claims due rows with FOR UPDATE SKIP LOCKED and moves them a day on in the same transaction
-- that creates the payouts, so a day's run happens once whatever the number of replicas.
create table payout_schedules (
  merchant_id text not null references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  hour integer not null check (hour between 0 and 23),
  enabled boolean not null default true,
  -- Per coin base units (USDC and USDT both have 6 decimals): smaller balances wait.
  minimum_amount bigint not null default 0 check (minimum_amount >= 0),
  next_run_at timestamptz not null,
  last_run_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (merchant_id, mode)
);
create index payout_schedules_due on payout_schedules (next_run_at) where enabled;
