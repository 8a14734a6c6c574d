-- Solana: the last transaction sent for each settlement intent (checked on chain before any
-- resend, so a retry never makes a second effect), and the watcher replicas' heartbeats
-- (live replicas split the open deposit addresses between them).

create table chain_intents (
  intent_id text primary key,
  chain text not null check (chain in ('solana', 'sui')),
  -- Every signature sent for this intent, newest last: a resend after an expired blockhash adds
  -- one; only one of them can ever land because each was refused before the next was built.
  signatures text[] not null default '{}',
  last_valid_block_height bigint,
  final_txid text,
  updated_at timestamptz not null default now()
);

create table watcher_replicas (
  chain text not null,
  replica_id text not null,
  heartbeat_at timestamptz not null default now(),
  primary key (chain, replica_id)
);
