import type { Chain, Mode } from "@gateway/domain";

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
  /**
   * The API's approval of this payout, signed after the OTP check, expiring within minutes. A
   * scheduled payout has none: the signer then sends it only to the merchant's linked wallet.
   */
  approval: { keyId: string; signature: Uint8Array; expiresAtMs?: bigint } | null;
}

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
