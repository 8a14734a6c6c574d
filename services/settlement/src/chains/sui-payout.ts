import type { SuiSettlement } from "@gateway/chain-sui";
import { SignerRefusedError } from "@gateway/signer-client";
import { type ChainPayout, PayoutRefusedError } from "./chain-payouts.js";

/**
 * Sui payouts through the same intent runner as Sui sweeps and refunds (once per intent, checked
 * on chain before a resend). A payout the signer refuses, or one without an approval, was never
 * sent: it fails and its funds go back to the balance.
 */
export function createSuiPayout(sui: SuiSettlement): ChainPayout {
  return {
    chain: "sui",
    async payout(work) {
      if (!work.approval) throw new PayoutRefusedError("the payout carries no approval from the API");
      try {
        return await sui.payout({
          intentId: work.intentId,
          payoutId: work.payoutId,
          mode: work.mode,
          coin: work.coin,
          amount: work.amount,
          destination: work.destination,
          approval: work.approval,
        });
      } catch (err) {
        if (err instanceof SignerRefusedError) throw new PayoutRefusedError(err.message, { cause: err });
        throw err;
      }
    },
  };
}
