import type { Chain, RefundWork, SweepWork } from "@gateway/domain";

export type { RefundAttestation, RefundWork, SweepWork } from "@gateway/domain";

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
