-- The owners' notice of each scheduled payout (services/api/src/accounts/scheduled-payout-notices.ts):
-- taken before the mail is sent, so a redelivered event, or another API replica, sends none again.
create table payout_owner_notices (
  payout_id text primary key,
  noticed_at timestamptz not null default now()
);
