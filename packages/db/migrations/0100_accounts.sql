-- Merchant accounts: e-mailed one-time codes and the payout wallets they guard.

-- One live code per (merchant, purpose): issuing a new one replaces the old. Only an HMAC of the
-- code is stored (keyed by a server secret), so reading this table does not reveal live codes.
-- `bound_to` is what the code authorises (a wallet "chain:address", a payout destination); a code
-- is refused for anything else. Five wrong tries delete the row, voiding the code.
create table email_codes (
  merchant_id text not null references merchants (id),
  purpose text not null,
  code_hash bytea not null,
  bound_to text not null default '',
  attempts integer not null default 0,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (merchant_id, purpose)
);

-- Where payouts of each chain go. Setting or changing one takes an e-mailed code.
create table payout_wallets (
  merchant_id text not null references merchants (id),
  chain text not null check (chain in ('solana', 'sui')),
  address text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (merchant_id, chain)
);
