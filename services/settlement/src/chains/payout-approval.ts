import type { KeyObject } from "node:crypto";
import type { Chain } from "@gateway/domain";
import type { ApprovePayout, PayoutCoin } from "@gateway/ledger";
import { signPayoutApproval } from "@gateway/signer-client";

/**
 * Approvals of scheduled live payouts, signed by settlement with a key the signer trusts for
 * payouts (SIGNER_TRUSTED_APPROVERS, `approves: "payout"`). Scheduled payouts only ever go to a
 * wallet the merchant linked with an e-mailed code. The intent is exactly what the chain payout
 * asks the signer to sign: `payout:<id>`, the net amount, the destination, the payout as reference.
 */
export function scheduledPayoutApprover(options: {
  keyId: string;
  key: KeyObject;
  /** The signer's asset name of a payout coin on a chain (Solana mint, Sui coin type). */
  asset(chain: Chain, coin: PayoutCoin): string | undefined;
}): ApprovePayout {
  return (p) => {
    const asset = options.asset(p.chain, p.coin);
    if (!asset) return null;
    return signPayoutApproval(
      {
        payoutId: p.id,
        chain: p.chain,
        mode: p.mode,
        asset,
        netAmount: p.netAmount,
        destination: p.destination,
      },
      options,
    );
  };
}
