import { readFileSync } from "node:fs";
import { createSolanaSettlement } from "@gateway/chain-solana";
import { createSuiSettlement } from "@gateway/chain-sui";
import type { SettlementConfig } from "@gateway/config";
import { createAuditHeadStore, type Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import {
  approverKeyFromSeed,
  createSignerClient,
  type SignerClient,
  withAuditHeadCheck,
} from "@gateway/signer-client";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Connection } from "@solana/web3.js";
import type { PayoutActorOptions } from "../payouts.js";
import { createChainPayout } from "./chain-payout.js";
import type { ChainSettlements } from "./chain-settlement.js";

export interface LiveChains {
  chains: ChainSettlements;
  payouts: Omit<PayoutActorOptions, "sql" | "bus" | "log">;
  signer: SignerClient | undefined;
}

/**
 * Live settlement per configured chain: Solana when SOLANA_RPC_URL is set, Sui when SUI_GRPC_URL
 * is, each only with settlement's refund approver key (without it the signer refuses refunds, so
 * running half-configured would strand customers' money). Test mode needs none of this.
 */
export function liveChainsFromConfig(config: SettlementConfig, sql: Sql, log: Logger): LiveChains {
  const wanted = Boolean(config.SOLANA_RPC_URL || config.SUI_GRPC_URL);
  if (wanted && !config.SETTLEMENT_APPROVER_SEED) {
    log.warn("a chain is configured without SETTLEMENT_APPROVER_SEED: live settlement is off");
  }
  if (!wanted || !config.SETTLEMENT_APPROVER_SEED) return { chains: {}, payouts: {}, signer: undefined };

  const file = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const [ca, cert, key] = [
    file(config.SIGNER_CA_FILE),
    file(config.SIGNER_CERT_FILE),
    file(config.SIGNER_KEY_FILE),
  ];
  // Every signature's audit head is kept in PostgreSQL; a signer whose log is behind it signs nothing.
  const signer = withAuditHeadCheck(
    createSignerClient({
      baseUrl: config.SIGNER_URL,
      ...(ca && cert && key ? { tls: { ca, cert, key } } : {}),
    }),
    createAuditHeadStore(sql, "settlement"),
  );
  const approver = {
    keyId: config.SETTLEMENT_APPROVER_KEY_ID,
    key: approverKeyFromSeed(Buffer.from(config.SETTLEMENT_APPROVER_SEED, "hex")),
  };
  const mints = { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT };
  const suiCoins = { SUI: "0x2::sui::SUI", USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE };

  const chains: ChainSettlements = {};
  const payouts: LiveChains["payouts"] = { chains: {} };
  if (config.SOLANA_RPC_URL) {
    const connection = new Connection(config.SOLANA_RPC_URL, {
      commitment: "confirmed",
      ...(config.SOLANA_WS_URL ? { wsEndpoint: config.SOLANA_WS_URL } : {}),
    });
    const solana = createSolanaSettlement({ sql, connection, signer, approver, mints, log });
    chains.solana = solana;
    payouts.chains!.solana = createChainPayout("solana", solana);
  }
  if (config.SUI_GRPC_URL) {
    const client = new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL });
    const sui = createSuiSettlement({ sql, client, signer, approver, coinTypes: suiCoins, log });
    chains.sui = sui;
    payouts.chains!.sui = createChainPayout("sui", sui);
  }
  return { chains, payouts, signer };
}
