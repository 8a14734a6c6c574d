-- The outbox NOTIFY goes on a channel of the writer's own (`outbox:` and its connection's
-- application_name), which only that service's relays LISTEN on. On the one `outbox` channel every
-- relay of every service was woken for every commit and dropped the notices not naming its own
-- service: two outbox commits a payment woke each relay process and its backend for nothing (four
-- relays in the local cluster). Channel names are identifiers, at most 63 bytes, hence `left`; the
-- relay cuts its channel's name the same way (packages/bus/src/outbox-relay.ts, outboxChannel).
-- Rows written by a process without a relay (a CLI) wait for the relays' fallback poll, as before.
create or replace function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify(left('outbox:' || current_setting('application_name'), 63), '');
  return null;
end $$;
