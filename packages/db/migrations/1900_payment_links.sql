-- Payment links (packages/payment-links): a reusable link for a fixed amount; each opening makes
-- a fresh payment, recorded in payment_link_payments so a link's counts come from its payments.
create table payment_links (
  id text primary key,
  merchant_id text not null references merchants (id),
  mode text not null check (mode in ('test', 'live')),
  currency text not null,
  -- in base units of `currency`, as payments.amount
  amount bigint not null check (amount > 0),
  description text,
  redirect_url text,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  deactivated_at timestamptz
);
create index payment_links_by_merchant on payment_links (merchant_id, mode, created_at desc, id desc);

create table payment_link_payments (
  payment_id uuid primary key references payments (id),
  link_id text not null references payment_links (id)
);
create index payment_link_payments_by_link on payment_link_payments (link_id);
