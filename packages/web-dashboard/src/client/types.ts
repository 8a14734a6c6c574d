// The JSON the dashboard reads that the contracts do not define: the account, keys, payout
// wallets, balances and the schedule, as the API's own routes answer them (docs/dashboard.md,
// docs/payouts.md). Payments, payouts, endpoints and deliveries are the contracts' resources.
import type { Chain, Coin, EventType, Mode, Payment, PayoutCoin, WebhookEndpoint } from "@gateway/contracts";

export interface List<T> {
  data: T[];
  has_more: boolean;
}

export type Role = "owner" | "admin" | "developer" | "viewer";

/** `GET /auth/me`: the merchant, the signed-in member, and the routes their role may call. */
export interface Merchant {
  id: string;
  email: string;
  business_name: string;
  member: {
    id: string;
    email: string;
    role: Role;
    totp: boolean;
    passkeys: number;
    second_factor_setup_required: boolean;
  };
  require_2fa: boolean;
  permissions: string[];
}

export interface Member {
  id: string;
  email: string;
  role: Role;
  two_factor: boolean;
  created_at: string;
}

export interface Team {
  require_2fa: boolean;
  members: Member[];
  invitations: { email: string; role: Role; created_at: string }[];
}

export interface SessionRow {
  id: string;
  created_at: string;
  last_seen_at: string;
  ip: string;
  user_agent: string;
  current: boolean;
}

export interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface AuditEntry {
  id: string;
  action: string;
  actor: string;
  ip: string;
  user_agent: string;
  created_at: string;
  details: Record<string, unknown>;
}

export interface ApiKeypair {
  id: string;
  test_key_prefix: string;
  live_key_prefix: string;
  active: boolean;
  created_at: string;
}

/** The one answer that carries the keys themselves. */
export interface CreatedKeypair {
  test_key: string;
  live_key: string;
}

export interface PayoutWallet {
  chain: Chain;
  address: string;
}

/** An e-mailed code was sent for this address. */
export interface WalletCodeSent {
  address: string;
  sent_to: string;
}

export interface PayoutCodeSent {
  chain: Chain;
  destination_address: string;
  sent_to: string;
}

/** `GET /payouts/context`: the totals are JSON numbers of USD; per coin, decimal strings. */
export interface PayoutContext {
  mode: Mode;
  total_available: number;
  balances: ChainBalance[];
  wallets: PayoutWallet[];
}

export interface ChainBalance {
  chain: Chain;
  available: number;
  pending: number;
  manual_payout_network_fee: string;
  coins: { coin: Coin; available: string; pending: string; payable: boolean }[];
}

export interface PayoutSchedule {
  mode: Mode;
  hour: number;
  enabled: boolean;
  minimum_amount: string;
  next_run_at: string | null;
  last_run_at: string | null;
}

export interface PaymentEvent {
  id: string;
  type: EventType;
  created_at: string;
}

export interface PaymentDetail {
  payment: Payment;
  events: PaymentEvent[];
}

export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

/** A payout waiting for its code: what the merchant asked for and where the code confirms. */
export interface PendingPayout {
  chain: Chain;
  coin: PayoutCoin;
  amount: string;
  destination: string;
}
