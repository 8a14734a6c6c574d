-- Receipts a customer asked for on the checkout (services/api/src/receipts): the address, and per
-- mail (completion, refund) when a sender took it on and when the SMTP server accepted it. A taken
-- mail not marked sent within the lease is taken again: a receipt is sent at least once, and
-- twice only if a sender stopped between the server's acceptance and the mark.
create table payment_receipts (
  payment_id uuid primary key references payments (id),
  email text not null,
  created_at timestamptz not null default now(),
  completed_claimed_at timestamptz,
  completed_sent_at timestamptz,
  refunded_claimed_at timestamptz,
  refunded_sent_at timestamptz
);
