-- Merchant webhooks: endpoints (secret sealed at rest), one delivery per (event, endpoint) with
-- its retry schedule held here so a notifier restart loses nothing, and a log of every attempt.

create table webhook_endpoints (
  id text primary key,
  merchant_id text not null references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  url text not null,
  description text,
  -- Subscribed event types; null means every type, including ones added later.
  events text[],
  -- AES-256-GCM under WEBHOOK_SECRET_KEY, additional data = endpoint id:
  -- 12-byte nonce || ciphertext || 16-byte tag. The plain `whsec_` secret is shown once.
  secret_sealed bytea not null,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index webhook_endpoints_merchant on webhook_endpoints (merchant_id, mode, created_at desc)
  where deleted_at is null;

create table webhook_deliveries (
  id text primary key,
  endpoint_id text not null references webhook_endpoints (id),
  event_id text not null,
  event_type text not null,
  -- The exact bytes POSTed (the event JSON), so every retry signs and sends the same body.
  payload text not null,
  status text not null check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  attempts integer not null default 0,
  -- When the next attempt is due. While a worker holds the delivery it is pushed ahead by the
  -- lease, so a crashed worker's delivery becomes due again by itself.
  next_attempt_at timestamptz not null default now(),
  -- No automatic retry is scheduled past this instant (3 days after the delivery was created).
  retry_until timestamptz not null,
  claim_token text,
  last_attempt_at timestamptz,
  last_status_code integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, endpoint_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id desc);

create table webhook_delivery_attempts (
  id bigserial primary key,
  delivery_id text not null references webhook_deliveries (id),
  -- 1-based; a worker that dies mid-attempt may leave two rows with one number (at-least-once).
  attempt integer not null,
  started_at timestamptz not null,
  -- Null when no HTTP response came back (timeout, refused, forbidden address).
  status_code integer,
  latency_ms integer not null,
  response_excerpt text,
  error text
);
create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id, attempt);

-- Wakes the delivery workers as soon as new deliveries commit; polling remains the fallback.
create function webhook_deliveries_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('webhook_deliveries', '');
  return null;
end $$;
create trigger webhook_deliveries_notify after insert on webhook_deliveries
  for each statement execute function webhook_deliveries_notify();
