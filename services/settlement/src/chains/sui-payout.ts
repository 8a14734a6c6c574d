import type { SuiSettlement } from "@gateway/chain-sui";
import { SignerRefusedError } from "@gateway/signer-client";
import { type ChainPayout, PayoutRefusedError } from "./chain-payouts.js";

/**
 * Sui payouts through the same intent runner as Sui sweeps and refunds (once per intent, checked
 * on chain before a resend). A scheduled payout carries no approval (the signer pays only the
 * merchant's linked wallet then). A payout the signer refuses was never sent: it fails and its
 * funds go back to the balance.
 */
export function createSuiPayout(sui: SuiSettlement): ChainPayout {
  return {
    chain: "sui",
    async payout(work) {
      try {
        return await sui.payout({
          intentId: work.intentId,
          payoutId: work.payoutId,
          merchantId: work.merchantId,
          mode: work.mode,
          coin: work.coin,
          amount: work.amount,
          destination: work.destination,
          ...(work.approval ? { approval: work.approval } : {}),
        });
      } catch (err) {
        if (err instanceof SignerRefusedError) throw new PayoutRefusedError(err.message, { cause: err });
        throw err;
      }
    },
  };
}
