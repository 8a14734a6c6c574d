-- The customer's notice of each refund announced on its own (a surplus returned after an
-- overpayment; services/api/src/receipts): claimed and marked sent as a row of payment_receipts
-- is, but one row per refund, so a redelivered command, another API replica or the checkout's
-- own call sends none again.
create table payment_refund_notices (
  refund_id text primary key,
  payment_id uuid not null references payments (id),
  claimed_at timestamptz,
  sent_at timestamptz
);
