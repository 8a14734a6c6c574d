-- The outbox NOTIFY names the writer (its connection's application_name: `api`, `settlement`,
-- `watcher-sui`, …), so only the relays of that service wake for its rows. Every relay of every
-- service woke for every commit before: under load two of three woke, locked nothing (SKIP LOCKED)
-- and committed an empty transaction, a few statements each per outbox commit. Rows written by a
-- process without a relay (a CLI) wait for the relays' fallback poll.
create or replace function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('outbox', current_setting('application_name'));
  return null;
end $$;
