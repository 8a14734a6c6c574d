-- The events API (GET /events) reads a merchant's events of one mode newest first, in insertion
-- order, optionally of one type, a page at a time from a cursor: each page is one index range
-- scan that stops at the page's size, as the payments list's index gives GET /payments.
create index events_merchant_seq on events (merchant_id, mode, seq desc);
create index events_merchant_type_seq on events (merchant_id, mode, type, seq desc);
-- Superseded by events_merchant_seq: nothing orders a merchant's events by created_at alone.
drop index events_merchant;
