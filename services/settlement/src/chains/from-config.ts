import { readFileSync } from "node:fs";
import type { ChainSettlementModule } from "@gateway/chain-kit";
import { loadEveryChain } from "@gateway/chain-packages";
import type { ChainProbe } from "@gateway/chain-preflight";
import { CHAINS, type Chain } from "@gateway/chains";
import type { SettlementConfig } from "@gateway/config";
import { createAuditHeadStore, type Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { counterIn, type Registry } from "@gateway/metrics";
import {
  approverKeyFromSeed,
  createSignerClient,
  type SignerClient,
  withAuditHeadCheck,
} from "@gateway/signer-client";
import type { PayoutActorOptions } from "../payouts.js";
import { pausedWhileFailing } from "./chain-paused.js";
import { createChainPayout } from "./chain-payout.js";
import type { ChainSettlements } from "./chain-settlement.js";

export interface LiveChains {
  chains: ChainSettlements;
  payouts: Omit<PayoutActorOptions, "sql" | "bus" | "log">;
  signer: SignerClient | undefined;
}

/**
 * The chains settlement's configuration names an endpoint of (Solana when SOLANA_RPC_URL is set,
 * Sui when SUI_GRPC_URL is), each with the settlement module of its package
 * (packages/chain-packages). Live settlement runs on them only with settlement's refund approver
 * key: without it the signer refuses refunds, so running half-configured would strand customers'
 * money. Test mode needs none of this.
 */
async function configuredChains(config: SettlementConfig): Promise<[Chain, ChainSettlementModule][]> {
  const modules = await loadEveryChain("settlement");
  return CHAINS.map((chain) => [chain, modules[chain]] as [Chain, ChainSettlementModule]).filter(
    ([, module]) => module.configured(config),
  );
}

/** The preflight of every chain live settlement sends on (none: test mode only). */
export async function settlementProbes(config: SettlementConfig): Promise<ChainProbe[]> {
  if (!config.SETTLEMENT_APPROVER_SEED) return [];
  return (await configuredChains(config)).map(([, module]) => module.probe(config));
}

/**
 * `crediting(chain)`: the chain guard's verdict; while it is false the chain's adapter sends
 * nothing (ChainPausedError, retried later).
 */
export async function liveChainsFromConfig(
  config: SettlementConfig,
  sql: Sql,
  log: Logger,
  crediting: (chain: Chain) => boolean,
  metrics?: Registry,
): Promise<LiveChains> {
  const wanted = await configuredChains(config);
  if (wanted.length > 0 && !config.SETTLEMENT_APPROVER_SEED) {
    log.warn("a chain is configured without SETTLEMENT_APPROVER_SEED: live settlement is off");
  }
  if (wanted.length === 0 || !config.SETTLEMENT_APPROVER_SEED)
    return { chains: {}, payouts: {}, signer: undefined };

  const file = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const [ca, cert, key] = [
    file(config.SIGNER_CA_FILE),
    file(config.SIGNER_CERT_FILE),
    file(config.SIGNER_KEY_FILE),
  ];
  // Every signature's audit head is kept in PostgreSQL; a signer whose log no longer holds the
  // entry stored there signs nothing, and the alert on this counter says so.
  const regressions = counterIn(metrics, {
    name: "gateway_signer_audit_regressions_total",
    help: "Signature requests refused because the signer's audit log no longer holds the entry settlement saw",
    labelNames: ["reason"],
  });
  const signer = withAuditHeadCheck(
    createSignerClient({
      baseUrl: config.SIGNER_URL,
      ...(ca && cert && key ? { tls: { ca, cert, key } } : {}),
    }),
    createAuditHeadStore(sql, "settlement"),
    {
      onRegression(error) {
        regressions?.inc({ reason: error.reason });
        log.error({ err: error, reason: error.reason }, "signer audit log regressed; nothing is signed");
      },
    },
  );
  const approver = {
    keyId: config.SETTLEMENT_APPROVER_KEY_ID,
    key: approverKeyFromSeed(Buffer.from(config.SETTLEMENT_APPROVER_SEED, "hex")),
  };

  const chains: ChainSettlements = {};
  const payouts: LiveChains["payouts"] = { chains: {} };
  for (const [chain, module] of wanted) {
    const adapter = pausedWhileFailing(module.create({ config, sql, log, signer, approver }), crediting);
    chains[chain] = adapter;
    payouts.chains![chain] = createChainPayout(chain, adapter);
  }
  return { chains, payouts, signer };
}
