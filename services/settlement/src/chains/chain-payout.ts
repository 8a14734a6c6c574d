// Live payouts through a chain's settlement, once per intent like its sweeps and refunds. A
// scheduled payout carries no approval (the signer pays only the merchant's linked wallet); one the
// signer refuses was never sent, so it fails and its funds go back to the balance.
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
