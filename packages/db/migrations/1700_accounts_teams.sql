-- Accounts fit for a business (docs/security.md): the people of a merchant account with their
-- roles, their sessions, their second factors, invitations, restricted API keys and the audit log.

-- A merchant account is a business; its members sign in. One person per e-mail address across the
-- whole service. Each existing merchant's sole login becomes its owner, with the id the merchant's
-- own suffix under `usr_` (so tests and operators can tell a founding owner at a glance).
create table users (
  id text primary key,
  merchant_id text not null references merchants (id),
  email text not null,
  password_hash text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
  email_verified_at timestamptz,
  -- AES-256-GCM of the base32 TOTP secret (key derived from WEBHOOK_SECRET_KEY, additional data
  -- the user id). Set by setup; in force only once `totp_enabled_at` is set by a confirming code.
  totp_secret_sealed bytea,
  totp_enabled_at timestamptz,
  -- The last TOTP time step accepted: a code of this step or an earlier one is a replay.
  totp_last_step bigint not null default 0,
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));
create index users_merchant on users (merchant_id, created_at);

insert into users (id, merchant_id, email, password_hash, role, email_verified_at, created_at)
select 'usr_' || substr(id, 5), id, email, password_hash, 'owner', email_verified_at, created_at
from merchants;

-- The password lives with the person now; the merchant keeps the address it signed up with.
alter table merchants alter column password_hash drop not null;
update merchants set password_hash = null;
alter table merchants add column require_2fa boolean not null default false;

-- Dashboard sessions: the JWT names its session, and every request reads this row, so a revoked
-- session is refused by every replica at once.
create table sessions (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  ip text not null,
  user_agent text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index sessions_user on sessions (user_id, created_at desc);

-- Ten single-use recovery codes per user, sha256 only (each has 50 bits of randomness).
create table recovery_codes (
  user_id text not null references users (id) on delete cascade,
  code_hash bytea not null,
  used_at timestamptz,
  primary key (user_id, code_hash)
);

-- WebAuthn credentials (passkeys and security keys), several per user, each named.
create table passkeys (
  id text primary key,
  user_id text not null references users (id) on delete cascade,
  credential_id text not null unique,
  public_key bytea not null,
  counter bigint not null default 0,
  transports text[] not null default '{}',
  name text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index passkeys_user on passkeys (user_id, created_at);

-- The challenge of a passkey registration in progress, one per user, used once.
create table webauthn_challenges (
  user_id text primary key references users (id) on delete cascade,
  challenge text not null,
  expires_at timestamptz not null
);

-- The first step of a two-step login: a random token (only its sha256 here) that the second step
-- spends, with the passkey challenge issued for it.
create table login_tokens (
  token_hash bytea primary key,
  user_id text not null references users (id) on delete cascade,
  webauthn_challenge text,
  expires_at timestamptz not null
);
create index login_tokens_user on login_tokens (user_id);

-- A pending invitation; its 6-digit code is an email_codes row of purpose `invitation:<email>`.
create table invitations (
  email text primary key,
  merchant_id text not null references merchants (id),
  role text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
  invited_by text not null,
  created_at timestamptz not null default now()
);

-- Restricted keys: null is every scope (so every keypair made before scopes keeps them all).
alter table api_keypairs add column scopes text[];

-- Who did what, from where. Nothing may change or remove an entry once written.
create table audit_log (
  id text primary key,
  seq bigint generated always as identity,
  merchant_id text not null references merchants (id),
  actor_id text,
  actor text not null,
  action text not null,
  ip text not null,
  user_agent text not null,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_log_merchant on audit_log (merchant_id, seq desc);

create function audit_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
end $$;
create trigger audit_log_append_only before update or delete on audit_log
  for each row execute function audit_log_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_append_only();
