// What the settlement service asks a chain to do: the work items it hands to each chain's
// settlement (packages/chain-solana, packages/chain-sui), defined once for both sides.
import type { Chain, Coin, Mode } from "./money.js";

/** Move a payment's funds from its deposit address to the vault (gas paid by the gas wallet). */
export interface SweepWork {
  /** Stable across retries: `sweep:<paymentId>`; the signer binds it to one effect. */
  intentId: string;
  paymentId: string;
  mode: Mode;
  chain: Chain;
  coin: Coin;
  depositAddress: string;
  derivationIndex: number;
  /** Base units of `coin`: everything counted as received. */
  amount: bigint;
}

/** Send `amount` back to the customer, from the deposit address or (a surplus) from the vault. */
export interface RefundWork {
  /** Stable across retries: `refund:<refundId>`. */
  intentId: string;
  refundId: string;
  paymentId: string;
  mode: Mode;
  chain: Chain;
  coin: Coin;
  amount: bigint;
  to: string;
  from: "deposit" | "vault";
  depositAddress: string;
  derivationIndex: number;
  /** The watcher's attestation of the refunded transfer; the signer refunds nothing without it. */
  attestation?: RefundAttestation | null;
}

export interface RefundAttestation {
  keyId: string;
  /** Base64. */
  signature: string;
  transferId: string;
  /** The whole transfer's amount. */
  transferAmount: bigint;
}

/** The API's approval of one payout, signed after the OTP check, expiring within minutes. */
export interface PayoutApproval {
  keyId: string;
  signature: Uint8Array;
  expiresAtMs?: bigint;
}

/** Send a merchant's payout from the vault to its destination (gas paid by the gas wallet). */
export interface PayoutWork {
  /** Stable across retries: `payout:<payoutId>`; the signer binds it to one effect. */
  intentId: string;
  payoutId: string;
  /** The merchant paid: the signer checks its allow-list and limits. */
  merchantId: string;
  mode: Mode;
  chain: Chain;
  coin: "USDC" | "USDT";
  /** Base units that reach the destination: the payout's amount less its network fee. */
  amount: bigint;
  destination: string;
  /** None for a scheduled payout: the signer then sends it only to the merchant's linked wallet. */
  approval: PayoutApproval | null;
}

/** A payout as one chain's settlement takes it: its chain is implied, the approval left out when none. */
export type ChainPayoutWork = Omit<PayoutWork, "chain" | "merchantId" | "approval"> & {
  merchantId?: string;
  approval?: PayoutApproval;
};
