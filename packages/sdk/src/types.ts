// Shapes of the API's resources, as /openapi.json documents them (a test keeps them in step).

export type Chain = "solana" | "sui";
export type Coin = "USDC" | "USDT" | "SOL" | "SUI";
export type Currency = "USD" | "USDC" | "USDT" | "SOL" | "SUI";
export type PaymentStatus =
  | "pending"
  | "confirming"
  | "confirmed"
  | "completed"
  | "underpaid"
  | "refunded"
  | "expired"
  | "failed";

export interface Refund {
  id: string;
  reason: "underpayment" | "overpayment" | "late";
  amount: string;
  coin: Coin;
  chain: Chain;
  to: string | null;
  status: "pending" | "sent";
  transaction_hash: string | null;
  simulated: boolean;
}

export interface Payment {
  id: string;
  object: "payment";
  /** Decimal string in `currency`. */
  amount: string;
  currency: Currency;
  status: PaymentStatus;
  is_test: boolean;
  description: string | null;
  redirect_url: string | null;
  checkout_url: string;
  fee: string;
  chain: Chain | null;
  coin: Coin | null;
  deposit_address: string | null;
  amount_due: string | null;
  amount_received: string;
  overpaid_amount: string | null;
  refunds: Refund[];
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface CreatePaymentParams {
  /** A number (as the seed specifies) or a decimal string, at most the currency's decimals. */
  amount: number | string;
  currency: Currency | Lowercase<Currency>;
  redirect_url?: string;
  description?: string;
  /** Seconds, 300 to 86,400; 1,800 by default. */
  expires_in?: number;
}

export interface ListPaymentsParams {
  limit?: number;
  status?: PaymentStatus;
  starting_after?: string;
}

export interface List<T> {
  object: "list";
  data: T[];
  has_more: boolean;
}

export type WebhookEventType =
  | "payment.confirming"
  | "payment.confirmed"
  | "payment.completed"
  | "payment.underpaid"
  | "payment.refunded"
  | "payment.expired"
  | "payment.failed"
  | "payout.processing"
  | "payout.completed"
  | "payout.failed";

export interface WebhookEndpoint {
  id: string;
  url: string;
  is_test: boolean;
  events: (WebhookEventType | "*")[];
  description: string | null;
  created_at: string;
}

/** Returned once, at creation: the only time the signing secret is shown. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface CreateWebhookParams {
  url: string;
  is_test: boolean;
  events?: WebhookEventType[];
  description?: string;
}

export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  last_attempt_at: string | null;
  last_status_code: number | null;
  attempt_log: {
    attempt: number;
    started_at: string;
    status_code: number | null;
    latency_ms: number | null;
    response_excerpt: string | null;
    error: string | null;
  }[];
}

export interface DepositWallet {
  chain: Chain;
  coin: Coin;
  address: string;
  amount: string;
  expires_at: string;
  payment_uri: string | null;
}

export interface CheckoutView {
  id: string;
  merchant_name: string;
  description: string | null;
  amount: string;
  currency: string;
  status: PaymentStatus;
  is_test: boolean;
  expires_at: string;
  redirect_url: string | null;
  options: { chain: Chain; coin: Coin; amount: string }[];
  wallet: DepositWallet | null;
  amount_received: string | null;
  refunds: { amount: string; coin: string; reason: string; status: string }[];
}

export type SimulatedOutcome = "paid" | "underpaid" | "overpaid" | "expired";
