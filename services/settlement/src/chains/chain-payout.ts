// Live payouts through a chain's settlement (Solana or Sui), which runs them through the same
// intent runner as its sweeps and refunds: once per intent, the signer's one bound transaction.
// A scheduled payout carries no approval (the signer then pays only the merchant's linked
// wallet). A payout the signer refuses was never sent: it fails and its funds go back to the
// balance.
import type { Chain } from "@gateway/domain";
import { SignerRefusedError } from "@gateway/signer-client";
import { type ChainPayout, PayoutRefusedError, type PayoutWork } from "./chain-payouts.js";

/** What each chain settlement's payout takes: the work without its chain, approval optional. */
interface PayingSettlement {
  payout(
    work: Omit<PayoutWork, "chain" | "approval"> & { approval?: NonNullable<PayoutWork["approval"]> },
  ): Promise<{ txid: string; gasSpent?: bigint }>;
}

export function createChainPayout(chain: Chain, settlement: PayingSettlement): ChainPayout {
  return {
    chain,
    async payout(work) {
      const { chain: _, approval, ...rest } = work;
      try {
        return await settlement.payout({ ...rest, ...(approval ? { approval } : {}) });
      } catch (err) {
        if (err instanceof SignerRefusedError) throw new PayoutRefusedError(err.message, { cause: err });
        throw err;
      }
    },
  };
}
