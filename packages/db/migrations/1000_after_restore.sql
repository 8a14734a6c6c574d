-- The bus epoch: a value the operator changes after restoring this database from a backup
-- (`npm run after-restore`, docs/operations.md). Every message id published to JetStream carries
-- it, so messages that the restore un-happened and services now publish again are not dropped by
-- JetStream's duplicate window as copies of what was published before the restore. Consumers
-- de-duplicate on the id without the epoch, in tables restored with everything else.
create table bus_epoch (
  only_row boolean primary key default true check (only_row),
  epoch text not null default '',
  changed_at timestamptz not null default now()
);
insert into bus_epoch default values;

-- A payout the signer signed after the backup was taken is booked again after the restore
-- (packages/ledger, after-restore.ts), whatever the merchant's available balance says: the credits
-- it was paid from come back only as the watchers see their deposits again. Only an account the
-- runbook marked may go below zero; every other merchant account still never can.
alter table ledger_accounts add column overdrawn_by_restore boolean not null default false;
alter table ledger_accounts drop constraint ledger_merchant_not_overdrawn;
alter table ledger_accounts add constraint ledger_merchant_not_overdrawn
  check (kind not like 'merchant_%' or balance >= 0 or overdrawn_by_restore);
