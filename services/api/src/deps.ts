import type { Bus } from "@gateway/bus";
import type { ApiConfig } from "@gateway/config";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { PriceService } from "@gateway/prices";
import type { Connection } from "@solana/web3.js";
import type { SessionTokens } from "./auth/session-token.js";
import type { DepositAddressPool } from "./deposit-address-pool.js";
import type { RateLimiter } from "./http/rate-limit.js";
import type { Mailer } from "./mail/mailer.js";
import type { ReceiptSender } from "./receipts/receipt-sender.js";
import type { PaymentWatch } from "./routes/checkout/payment-watch.js";
import type { PayoutDestinations } from "./routes/payout-destinations/registry.js";
import type { PayoutApprover } from "./routes/payouts/payout-approval.js";

/** Mint addresses of the stablecoins on Solana, for Solana Pay URIs. */
export type SolanaMints = Record<"USDC" | "USDT", string>;

/** Everything the API's routes need, created once in main.ts (or by a test) and passed down. */
export interface ApiDeps {
  config: ApiConfig;
  sql: Sql;
  bus: Bus;
  log: Logger;
  limiter: RateLimiter;
  sessions: SessionTokens;
  mailer: Mailer;
  /** The receipts customers asked for on the checkout. */
  receipts: ReceiptSender;
  /** One-time deposit addresses, derived ahead by the signer (over mTLS gRPC) a batch at a time. */
  depositAddresses: DepositAddressPool;
  /** Signs live payout approvals after the OTP check; without it live payouts are refused. */
  payoutApprover?: PayoutApprover | undefined;
  /**
   * The signer's payout allow-list (needs the approver). Without it wallets are linked without the
   * signer knowing, and live payouts are refused by it.
   */
  payoutDestinations?: PayoutDestinations | undefined;
  solanaMints: SolanaMints;
  /** The Solana RPC node (SOLANA_RPC_URL) Solana Pay transaction requests read; without it they are not offered. */
  solana?: Connection | undefined;
  /** The payments this process's open checkout streams follow. */
  paymentWatch: PaymentWatch;
  /** Live SOL/SUI prices, refreshed in the background; without it live priced requests get 503. */
  prices?: PriceService | undefined;
}
