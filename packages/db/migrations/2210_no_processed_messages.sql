-- No consumer records the message ids it handled any more: each one's own write is keyed by what
-- the message is about (docs/reliability.md, "Exactly once without records").
drop table processed_messages;
