-- Each attempt to claim an Idempotency-Key carries a token of its own request. An attempt whose
-- claim committed but whose answer was lost (a connection cut by a database restart) is tried
-- again by the same request, which then recognises the claim as its own instead of waiting out
-- the takeover delay as a stranger would.
alter table idempotency_keys add column claim_token uuid;
