import type { Chain, Coin, Mode } from "@gateway/domain";

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

/**
 * One chain's settlement: builds the transaction, has the signer sign it for the intent, sends
 * it and waits for finality. Both calls must be idempotent per intentId: before (re)sending they
 * check the chain for an earlier transaction of the same intent, and an expired blockhash or
 * stale gas object means rebuilding and re-signing the same intent, never a second effect.
 * They resolve with the final transaction id, or throw to be retried later.
 */
export interface ChainSettlement {
  chain: Chain;
  sweep(work: SweepWork): Promise<{ txid: string }>;
  refund(work: RefundWork): Promise<{ txid: string }>;
}

export type ChainSettlements = Partial<Record<Chain, ChainSettlement>>;
