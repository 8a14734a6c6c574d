// Live payouts on Solana through the same intent runner as Solana sweeps and refunds: one SPL
// transfer from the vault, spending a durable nonce, signed against the API's approval (or, for a
// scheduled payout, none: the signer then pays only the linked wallet), once per intent. A payout
// the signer refuses was never sent: it fails and its funds go back to the balance.
import type { SolanaSettlement } from "@gateway/chain-solana";
import { SignerRefusedError } from "@gateway/signer-client";
import { type ChainPayout, PayoutRefusedError } from "./chain-payouts.js";

export function createSolanaPayout(solana: SolanaSettlement): ChainPayout {
  return {
    chain: "solana",
    async payout(work) {
      try {
        return await solana.payout({
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
