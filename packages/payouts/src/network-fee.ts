import { perChain } from "@gateway/chains";
import type { Chain } from "@gateway/contracts";

/**
 * Network gas a payout requested by hand is charged, in base units of the payout coin: each
 * chain's, from the registry (`manualPayoutNetworkFee`). The scheduled payout of the day is free.
 */
export const MANUAL_PAYOUT_NETWORK_FEE: Readonly<Record<Chain, bigint>> = perChain(
  (module) => module.manualPayoutNetworkFee,
);
