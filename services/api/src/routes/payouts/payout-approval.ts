import type { KeyObject } from "node:crypto";
import { type ChainTokenConfig, configuredTokens } from "@gateway/config";
import type { Chain, Mode } from "@gateway/domain";
import type { PayoutCoin, StoredPayoutApproval } from "@gateway/payouts";
import { approverKeyFromSeed, signPayoutApproval } from "@gateway/signer-client";

/**
 * The API's payout approver: the key the signer trusts for payouts (SIGNER_TRUSTED_APPROVERS,
 * `approves: "payout"`), and the signer's asset name of each payout coin per chain (Solana: the
 * mint; Sui: the coin type). Without one, live payouts carry no approval and the signer refuses them.
 */
export interface PayoutApprover {
  keyId: string;
  key: KeyObject;
  asset(chain: Chain, coin: PayoutCoin): string | undefined;
}

/**
 * Signs the payout intent after the OTP check: exactly what settlement will ask the signer to
 * sign (`payout:<id>`, the vault to `destination`, `amount` net of the network fee, the merchant),
 * valid until `expiresAt`, so the approval covers this payout and nothing else, for minutes.
 * Undefined when the coin has no known asset.
 */
export function approvePayout(
  approver: PayoutApprover,
  p: {
    id: string;
    merchantId: string;
    mode: Mode;
    chain: Chain;
    coin: PayoutCoin;
    netAmount: bigint;
    destination: string;
    expiresAt: Date;
  },
): StoredPayoutApproval | undefined {
  const asset = approver.asset(p.chain, p.coin);
  if (!asset) return undefined;
  return signPayoutApproval(
    {
      payoutId: p.id,
      merchantId: p.merchantId,
      expiresAtMs: BigInt(p.expiresAt.getTime()),
      chain: p.chain,
      mode: p.mode,
      asset,
      netAmount: p.netAmount,
      destination: p.destination,
    },
    approver,
  );
}

/**
 * The approver from API_APPROVER_KEY_ID / API_APPROVER_SEED, or none when no seed is set; each
 * chain's assets are the token ids its configuration names (@gateway/config's chain-configs.ts).
 */
export function payoutApproverFromConfig(
  config: ChainTokenConfig & { API_APPROVER_KEY_ID: string; API_APPROVER_SEED?: string | undefined },
): PayoutApprover | undefined {
  if (!config.API_APPROVER_SEED) return undefined;
  const assets: Record<Chain, Record<PayoutCoin, string>> = configuredTokens(config);
  return {
    keyId: config.API_APPROVER_KEY_ID,
    key: approverKeyFromSeed(Buffer.from(config.API_APPROVER_SEED, "hex")),
    asset: (chain, coin) => assets[chain][coin],
  };
}
