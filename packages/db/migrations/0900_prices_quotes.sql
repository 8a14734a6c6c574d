-- Live prices and quotes (docs/payment-lifecycle.md, "Quotes"). A USD payment paid in SOL or SUI
-- locks a rate for QUOTE_TTL_SECONDS: the deposit wallet keeps its current quote, the payment
-- row says when the running quote ends (the expiry sweeper's index), and each credit books the
-- payment's USD value and the rate it was valued at.

alter table deposit_wallets
  -- Micro-USD per whole coin; null for wallets paid 1:1 (stablecoins) or in the payment's own coin.
  add column quote_rate_micros bigint check (quote_rate_micros > 0),
  add column quote_expires_at timestamptz,
  add constraint deposit_wallets_quote_whole check ((quote_rate_micros is null) = (quote_expires_at is null));

-- Set while the current wallet has a quote that has not ended yet; the actor's state is the truth.
alter table payments add column quote_expires_at timestamptz;
create index payments_open_quote_expiry on payments (quote_expires_at)
  where quote_expires_at is not null and status in ('pending', 'confirming');

alter table ledger_transactions
  -- For payment credits: the payment's USD value (micro-USD) and the rate used (micro-USD per coin,
  -- null for stablecoins). Null on other movements and on credits booked before prices existed.
  add column usd_value_micros bigint,
  add column usd_rate_micros bigint;
