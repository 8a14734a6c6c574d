-- An operator's retry of a refund whose transaction failed on chain (docs/operations.md, "A refund
-- that failed on chain"). The watcher's key attested the failure after the chain showed it; the
-- intent's next attempt carries this to the signer as `supersedes`, and the signer checks it.
-- Nothing here is trusted: the signer verifies the attestation and everything else itself.
create table chain_intent_retries (
  -- Settlement's intent id (chain_intents.intent_id) and the attempt that replaces the failed one.
  intent_id text not null,
  attempt integer not null check (attempt > 1),
  chain text not null,
  -- The signer intent id of the failed attempt, and its transaction as the chain spells it.
  replaces text not null,
  txid text not null,
  key_id text not null,
  signature bytea not null,
  -- Who ran the command (the operator's name, for the record).
  requested_by text not null,
  created_at timestamptz not null default now(),
  primary key (intent_id, attempt)
);
