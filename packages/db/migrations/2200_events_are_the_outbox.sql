-- Events are the outbox, and the outbox is an append-only log of commands: each relay follows its
-- log by an (xid, seq) cursor below the oldest running transaction, so no row is updated or
-- deleted one at a time to be published (docs/write-path.md, "The gap-safe cursor").
alter table events add column xid xid8 not null default pg_current_xact_id();
create index events_relay on events (xid, seq);

alter table outbox add column xid xid8 not null default pg_current_xact_id();
create index outbox_relay on outbox (xid, seq);

create table relay_cursors (
  relay text primary key check (relay in ('events', 'outbox')),
  xid xid8 not null,
  seq bigint not null
);

-- Every event written before now went out through its outbox row; the rows above all carry this
-- transaction's id, so the events cursor starts past them and the outbox cursor just before its
-- first unpublished row.
insert into relay_cursors values
  ('events', pg_current_xact_id(), coalesce((select max(seq) from events), 0)),
  ('outbox', pg_current_xact_id(),
    coalesce((select min(seq) - 1 from outbox where published_at is null), (select max(seq) from outbox), 0));

drop index outbox_unpublished;
alter table outbox drop column published_at;

-- What the relays have yet to publish, ignoring the running transactions they wait for: the
-- backlog the metrics report and the tests wait on. `webhook.test` events go to one endpoint
-- through their own delivery and are never relayed.
create view outbox_pending as
  select o.* from outbox o join relay_cursors c on c.relay = 'outbox'
  where (o.xid, o.seq) > (c.xid, c.seq);
create view events_pending as
  select e.* from events e join relay_cursors c on c.relay = 'events'
  where (e.xid, e.seq) > (c.xid, c.seq) and e.type <> 'webhook.test';
