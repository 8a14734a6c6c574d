// The resources merchants read, as the API returns them and webhooks carry them. Amounts are
// decimal strings (never floats): `amount` and `fee` in the payment's currency, on-chain amounts
// in the coin. docs/api-reference.md is generated from the same shapes' OpenAPI schemas.
import type { EventType } from "./event-types.js";
import type { Chain, Coin, Currency, Mode, PayoutCoin } from "./money.js";
import type {
  DeliveryStatus,
  PaymentStatus,
  PayoutKind,
  PayoutStatus,
  RefundReason,
  RefundStatus,
} from "./statuses.js";

export interface Refund {
  /** `<payment id>:<transfer id>:<reason>`, stable across retries. */
  id: string;
  reason: RefundReason;
  amount: string;
  coin: Coin;
  chain: Chain;
  /** The sender of the refunded transfer; null only for a simulated refund. */
  to: string | null;
  status: RefundStatus;
  transaction_hash: string | null;
  simulated: boolean;
}

export interface Payment {
  id: string;
  object: "payment";
  amount: string;
  currency: Currency;
  status: PaymentStatus;
  is_test: boolean;
  description: string | null;
  redirect_url: string | null;
  checkout_url: string;
  fee: string;
  /** Null until the customer chose how to pay (a deposit wallet was generated). */
  chain: Chain | null;
  coin: Coin | null;
  deposit_address: string | null;
  amount_due: string | null;
  amount_received: string;
  overpaid_amount: string | null;
  refunds: Refund[];
  /** A USD payment paid in SOL or SUI: the rate its amount due was locked at, and until when. */
  quote: Quote | null;
  /** USD values (decimal strings, up to six decimals): at creation (limits) and as booked at completion (fee). */
  usd_value_at_creation: string | null;
  usd_value_at_completion: string | null;
  /** SOL/SUI payments: USD per coin at creation and at completion (a quoted payment: its quote's rate). */
  usd_rate_at_creation: string | null;
  usd_rate_at_completion: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** A locked rate: USD per whole coin as a decimal string, until `expires_at` (docs/payment-lifecycle.md). */
export interface Quote {
  rate: string;
  expires_at: string;
}

/** The one-time address a customer pays a payment to, in the coin and on the chain they chose. */
export interface DepositWallet {
  chain: Chain;
  coin: Coin;
  address: string;
  /** What is due, in the coin. */
  amount: string;
  expires_at: string;
  /** A Solana Pay URI on Solana; null on chains without such a scheme. */
  payment_uri: string | null;
  /** Solana: the Solana Pay transaction request of the payment (`{base}/solana-pay/tx/<id>`); null elsewhere. */
  transaction_request_url: string | null;
  /** SOL or SUI paying a USD payment: the rate the amount is locked at; null otherwise. */
  quote: Quote | null;
}

export interface Payout {
  id: string;
  object: "payout";
  status: PayoutStatus;
  amount: string;
  /** What the network costs, taken from `amount`; zero for the scheduled payout of the day. */
  network_fee: string;
  net_amount: string;
  coin: PayoutCoin;
  chain: Chain;
  destination: string;
  transaction_hash: string | null;
  kind: PayoutKind;
  mode: Mode;
  is_test: boolean;
  simulated: boolean;
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  is_test: boolean;
  /** `["*"]`: every event type, including those added later. */
  events: (EventType | "*")[];
  description: string | null;
  created_at: string;
}

export interface DeliveryAttempt {
  attempt: number;
  started_at: string;
  status_code: number | null;
  latency_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
}

/** One event sent (or being sent) to one endpoint, with every attempt. */
export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  /** Set while the delivery is pending. */
  next_attempt_at: string | null;
  created_at: string;
  last_attempt_at: string | null;
  last_status_code: number | null;
  attempt_log: DeliveryAttempt[];
}
