// What the checkout page reads from `GET /payments/checkout/:id`, in the contracts' own types:
// the public view of one payment, with nothing a merchant keeps secret.
import type {
  Chain,
  Coin,
  Currency,
  DepositWallet,
  PaymentStatus,
  Quote,
  RefundReason,
  RefundStatus,
} from "@gateway/contracts";

/** One way to pay: an amount in the coin, or null while a quoted coin has no reliable price. */
export interface CheckoutOption {
  chain: Chain;
  coin: Coin;
  amount: string | null;
  /** USD per coin, for a USD payment paid in SOL or SUI: an estimate until a quote locks it. */
  rate: string | null;
}

export interface CheckoutWallet extends DepositWallet {
  quote: Quote | null;
}

export interface CheckoutRefund {
  amount: string;
  coin: Coin;
  reason: RefundReason;
  status: RefundStatus;
}

export interface CheckoutView {
  id: string;
  merchant_name: string;
  description: string | null;
  amount: string;
  currency: Currency;
  status: PaymentStatus;
  is_test: boolean;
  expires_at: string;
  redirect_url: string | null;
  options: CheckoutOption[];
  wallet: CheckoutWallet | null;
  amount_received: string | null;
  refunds: CheckoutRefund[];
}

/** A notice on the change stream: the payment moved to `version`. */
export interface PaymentChange {
  version: number;
  status: PaymentStatus;
}
