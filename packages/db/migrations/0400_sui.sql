-- Sui: the checkpoint watcher's cursors and replicas, and the settlement's transaction attempts
-- per signer intent.

-- Open deposit addresses hash into a fixed number of partitions; each partition remembers the
-- last checkpoint whose deposits for its addresses are in the outbox. The advance and the
-- deposit rows commit together, so a restart resumes with no gap and no double count.
create table sui_watcher_partitions (
  partition integer primary key,
  checkpoint bigint not null,
  updated_at timestamptz not null default now()
);

-- Live watcher replicas; partitions are split among those with a recent heartbeat.
create table sui_watcher_replicas (
  id text primary key,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now()
);

-- The watcher loads new Sui deposit addresses incrementally by creation time.
create index deposit_wallets_sui_created on deposit_wallets (created_at) where chain = 'sui';

-- Every transaction signed for an intent, stored before it is sent, so a retry first checks
-- the chain for it (and re-sends the same bytes while its inputs are still current) instead
-- of signing a second effect.
create table sui_intent_attempts (
  intent_id text not null,
  attempt integer not null,
  digest text not null unique,
  tx_bytes bytea not null,
  signatures text[] not null,
  -- [{objectId, version}] of every input and gas object: any of them moved on means the
  -- transaction can never execute.
  inputs jsonb not null,
  created_at timestamptz not null default now(),
  primary key (intent_id, attempt)
);

-- The final transaction of an intent, once its checkpoint is known.
create table sui_intents_done (
  intent_id text primary key,
  digest text not null,
  checkpoint bigint not null,
  done_at timestamptz not null default now()
);
