-- Core schema: merchants and their keys, payments with their deposit wallets, the event log,
-- the transactional outbox, idempotency records and shared rate-limit counters.

create table merchants (
  id text primary key,
  email text not null,
  business_name text not null,
  password_hash text not null,
  email_verified_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index merchants_email_key on merchants (lower(email));

create table api_keypairs (
  id text primary key,
  merchant_id text not null references merchants (id),
  -- sha256 of the whole key; the key itself is shown once and never stored.
  test_key_hash bytea not null unique,
  test_key_prefix text not null,
  live_key_hash bytea not null unique,
  live_key_prefix text not null,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index api_keypairs_merchant on api_keypairs (merchant_id, created_at desc);

create table payments (
  id uuid primary key,
  merchant_id text not null references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  -- amount and fee in base units of `currency` (USD cents, lamports, ...).
  amount bigint not null check (amount > 0),
  currency text not null,
  fee bigint not null check (fee >= 0),
  description text,
  redirect_url text,
  status text not null,
  chain text,
  coin text,
  -- The payment actor's whole state (packages/domain), bigints as strings.
  state jsonb not null,
  version integer not null default 0,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index payments_merchant_list on payments (merchant_id, mode, created_at desc, id desc);
create index payments_merchant_status on payments (merchant_id, mode, status, created_at desc);
-- The expiry sweeper reads only open payments.
create index payments_open_expiry on payments (expires_at) where status in ('pending', 'confirming');

-- One address per (payment, chain, coin) choice; an address is never handed out twice.
create table deposit_wallets (
  id text primary key,
  payment_id uuid not null references payments (id),
  mode text not null check (mode in ('test', 'live')),
  chain text not null check (chain in ('solana', 'sui')),
  coin text not null,
  derivation_index bigint not null,
  address text not null unique,
  amount_due bigint not null check (amount_due > 0),
  active boolean not null default true,
  created_at timestamptz not null default now(),
  unique (chain, mode, derivation_index),
  unique (payment_id, chain, coin)
);
create index deposit_wallets_open on deposit_wallets (chain, mode) where active;

-- Derivation indexes come from sequences so no two payments ever get the same address.
create sequence deposit_index_solana_live minvalue 0 start 0;
create sequence deposit_index_solana_test minvalue 0 start 0;
create sequence deposit_index_sui_live minvalue 0 start 0;
create sequence deposit_index_sui_test minvalue 0 start 0;

-- Every state change of a merchant-visible object, in order; the notifier delivers them.
create table events (
  id text primary key,
  merchant_id text not null references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  type text not null,
  payment_id uuid,
  payout_id text,
  data jsonb not null,
  created_at timestamptz not null default now(),
  -- Insertion order: one transaction can write several events in the same millisecond (a
  -- final transfer that covers the amount emits confirming then confirmed), so created_at
  -- alone cannot order them.
  seq bigint generated always as identity
);
create index events_payment on events (payment_id, seq) where payment_id is not null;
create index events_merchant on events (merchant_id, mode, created_at desc);

-- Transactional outbox: written in the same transaction as the change that causes it; the
-- relay publishes each row with Nats-Msg-Id = id so JetStream drops duplicates.
create table outbox (
  seq bigserial primary key,
  id text not null unique,
  subject text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index outbox_unpublished on outbox (seq) where published_at is null;

-- Idempotent consumers record each handled message id in the transaction of its effect.
create table processed_messages (
  consumer text not null,
  message_id text not null,
  processed_at timestamptz not null default now(),
  primary key (consumer, message_id)
);

create table idempotency_keys (
  scope text not null,
  key text not null,
  request_hash bytea not null,
  status integer,
  response jsonb,
  created_at timestamptz not null default now(),
  primary key (scope, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);

-- Fixed-window counters shared by every API replica. Unlogged: losing counts in a crash is fine.
create unlogged table rate_limit_counters (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null,
  primary key (bucket, window_start)
);

-- Wakes the outbox relay as soon as a row commits; polling remains the fallback.
create function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('outbox', '');
  return null;
end $$;
create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify();
