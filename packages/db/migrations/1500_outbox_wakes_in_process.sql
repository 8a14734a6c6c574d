-- The outbox no longer NOTIFYs: the relay of the process that wrote the rows hears of the commit in
-- process (packages/db/src/outbox-commits.ts), and every relay polls for rows of other processes.
-- A notifying commit takes a lock that serializes every notifying commit of the cluster, and
-- PostgreSQL signals every backend LISTENing on any channel of the database for each NOTIFY (each
-- then reads the queue and drops what is not its own): two such commits a payment, and five
-- listening backends in the local cluster, woke for every one.
drop trigger outbox_notify on outbox;
drop function outbox_notify();
