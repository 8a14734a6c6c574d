-- The watchers hold each chain's open deposit addresses in memory (packages/watcher-kit,
-- open-addresses.ts) and used to find new ones only by polling, so a customer paying the moment
-- the checkout page showed the address was not watched yet (nor, on Solana, registered with the
-- webhook provider). A live wallet that becomes watchable now tells them at once: inserted
-- active, or made active again (a customer going back to a chain they had picked before). One
-- channel per chain, so a watcher hears only its own; the payload is the address, which the
-- watcher loads by itself. NOTIFY is sent at commit, so the row is visible to whoever hears it.
-- Polling stays as the safety net for a notification lost while a watcher's LISTEN was down.
create function deposit_wallets_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('deposit_wallets_' || new.chain, new.address);
  return null;
end $$;
create trigger deposit_wallets_notify_insert after insert on deposit_wallets
  for each row when (new.mode = 'live' and new.active)
  execute function deposit_wallets_notify();
create trigger deposit_wallets_notify_reactivate after update of active on deposit_wallets
  for each row when (new.mode = 'live' and new.active and not old.active)
  execute function deposit_wallets_notify();
