// The JSON the dashboard reads, as the API's OpenAPI document describes it (the SDK's generated
// types; type-only, so nothing of the SDK reaches the bundle). Payments are the contracts' resource.
import type { Chain, Payment, PayoutCoin } from "@gateway/contracts";
import type { DashboardPayment, PayoutContext } from "@gateway/sdk/types";

export type {
  ApiKeypair,
  AuditEntry,
  CreatedApiKeypair as CreatedKeypair,
  CreatedWebhookEndpoint,
  DashboardOverview,
  List,
  Me as Merchant,
  Member,
  Passkey,
  PaymentLink,
  PaymentTransaction,
  PayoutCode as PayoutCodeSent,
  PayoutContext,
  PayoutSchedule,
  PayoutWallet,
  PayoutWalletCode as WalletCodeSent,
  RecoveryCodes,
  RegisteredPasskey,
  Role,
  Session as SessionRow,
  Team,
  Token,
  TotpSetup,
} from "@gateway/sdk/types";

export type ChainBalance = PayoutContext["balances"][number];

/** `GET /dashboard/api/payments/:id`, its payment typed by the contracts' schema. */
export interface PaymentDetail {
  payment: Payment;
  events: DashboardPayment["events"];
}

/** A payout waiting for its code: what the merchant asked for and where the code confirms. */
export interface PendingPayout {
  chain: Chain;
  coin: PayoutCoin;
  amount: string;
  destination: string;
}
