-- The watcher kit: replicas of every chain's watcher heartbeat into the one `watcher_replicas`
-- table (keyed by chain, from 0300_solana.sql), so Sui's own replica table goes; and every
-- chain's open addresses are loaded incrementally by creation time, so the index that served
-- only Sui serves them all.
drop table sui_watcher_replicas;

drop index deposit_wallets_sui_created;
create index deposit_wallets_chain_created on deposit_wallets (chain, created_at);
