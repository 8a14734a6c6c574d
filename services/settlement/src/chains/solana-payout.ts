// Live payouts on Solana through the same intent runner as Solana sweeps and refunds: one SPL
// transfer from the vault, spending a durable nonce, signed against the API's approval, once per
// intent. A payout the signer refuses, or one without an approval, was never sent: it fails and
// its funds go back to the balance.
import type { SolanaSettlement } from "@gateway/chain-solana";
import { SignerRefusedError } from "@gateway/signer-client";
import { type ChainPayout, PayoutRefusedError } from "./chain-payouts.js";

export function createSolanaPayout(solana: SolanaSettlement): ChainPayout {
  return {
    chain: "solana",
    async payout(work) {
      if (!work.approval) throw new PayoutRefusedError("the payout carries no approval from the API");
      try {
        return await solana.payout({
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
