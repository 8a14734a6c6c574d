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
