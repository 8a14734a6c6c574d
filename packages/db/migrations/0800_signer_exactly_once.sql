-- The signer signs one transaction per intent id, ever. Settlement keeps that transaction (the
-- message and the signed wire bytes) with its intent, resends exactly those bytes until they land
-- or can never land, and only then opens a new attempt under a new signer intent id
-- (`<intent>#<attempt>`). Solana refunds and payouts spend a durable nonce from a pool of the gas
-- wallet's nonce accounts, so their transaction never expires.

alter table chain_intents
  add column attempt integer not null default 1,
  add column message bytea,
  add column wire bytea,
  add column signature text,
  add column nonce_account text,
  add column nonce_value text;

create table solana_nonce_accounts (
  mode text not null check (mode in ('live', 'test')),
  idx integer not null check (idx >= 0),
  address text not null unique,
  -- false until the creating transaction has landed.
  ready boolean not null default false,
  -- The intent whose transaction spends the nonce's current value, until it is final or dead.
  intent_id text unique,
  leased_at timestamptz,
  -- A value the signer reported bound to another intent (a lease lost to a database restore):
  -- skipped until the nonce moves on.
  blocked_value text,
  primary key (mode, idx)
);

-- The highest audit chain head each caller saw from the signer: a head lower than this one means
-- the signer's log was cut back on its host.
create table signer_audit_heads (
  caller text primary key,
  seq bigint not null,
  hash text not null,
  seen_at timestamptz not null default now()
);
