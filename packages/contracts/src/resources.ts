// The resources merchants read besides the payment (payment-resource.ts), as the API returns them
// and webhooks carry them. Amounts are decimal strings (never floats), on-chain amounts in the
// coin. The API's schemas for them are held equal to these types at compile time.
import type { EventType } from "./event-types.js";
import type { Chain, Coin, Mode, PayoutCoin } from "./money.js";
import type { Quote } from "./payment-resource.js";
import type { DeliveryStatus, PayoutKind, PayoutStatus } from "./statuses.js";

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
