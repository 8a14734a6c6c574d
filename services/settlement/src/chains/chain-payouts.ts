import type { Chain, PayoutWork } from "@gateway/domain";

export type { PayoutWork } from "@gateway/domain";

/**
 * A payout the chain adapter knows it did not and will not send (the signer refused the intent,
 * the destination cannot hold the coin): the payout fails and its funds go back to the balance.
 * Any other error is retried, since the transaction may have gone out.
 */
export class PayoutRefusedError extends Error {
  override name = "PayoutRefusedError";
}

/**
 * One chain's payouts. Idempotent per `intentId` as ChainSettlement is: before (re)sending, the
 * adapter looks for an earlier transaction of the intent; it resolves with the final transaction
 * id, throws PayoutRefusedError when nothing was or will be sent, or throws anything else to be
 * retried.
 */
export interface ChainPayout {
  chain: Chain;
  /** `gasSpent`: native base units (lamports, MIST) the gas wallet paid, when the chain says. */
  payout(work: PayoutWork): Promise<{ txid: string; gasSpent?: bigint }>;
}

export type ChainPayouts = Partial<Record<Chain, ChainPayout>>;
