-- Money that moved on chain under a signature the signer's own record holds, and that no payment
-- in this database explains: a sweep or refund signed after the backup a restore went back to,
-- for a payment the restore took away (`npm run after-restore`, docs/operations.md). The vault's
-- side is booked as on chain, against a suspense account that says so, so the vault's account
-- keeps equalling the vault on chain while an operator finds whose money it is.
alter table ledger_accounts drop constraint ledger_accounts_kind_check;
alter table ledger_accounts add constraint ledger_accounts_kind_check check (kind in (
  'merchant_available', 'merchant_reserved',
  'platform_vault', 'platform_fees', 'platform_refunds',
  'platform_gas_recovered', 'platform_gas_spent', 'platform_gas_wallet',
  'platform_suspense'
));
alter table ledger_transactions drop constraint ledger_transactions_kind_check;
alter table ledger_transactions add constraint ledger_transactions_kind_check check (kind in (
  'payment_credited', 'refund_owed', 'refund_paid',
  'payout_reserved', 'payout_completed', 'payout_released', 'gas_spent',
  'suspense_received', 'suspense_paid'
));
