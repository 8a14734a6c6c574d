// Every chain's package through the one map: each part is its chain's, and every chain's probe,
// built from a configuration as the services build it, runs under one chain guard.
import { PreflightError, startChainGuard } from "@gateway/chain-preflight";
import { solanaProbeFromConfig } from "@gateway/chain-solana";
import { suiProbeFromConfig } from "@gateway/chain-sui";
import { CHAINS } from "@gateway/contracts";
import { createLogger } from "@gateway/logging";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAIN_PACKAGES, loadEveryChain } from "./index.js";

describe("CHAIN_PACKAGES", () => {
  it("has a package per chain whose watcher is the chain's", async () => {
    expect(Object.keys(CHAIN_PACKAGES).sort()).toEqual([...CHAINS].sort());
    for (const chain of CHAINS) expect((await CHAIN_PACKAGES[chain].watcher()).chain).toBe(chain);
  });

  it("loads one part of every chain, keyed by chain", async () => {
    const doctors = await loadEveryChain("doctor");
    expect(Object.keys(doctors)).toEqual([...CHAINS]);
    for (const chain of CHAINS) expect(doctors[chain]).toBe(await CHAIN_PACKAGES[chain].doctor());
  });
});

describe("every chain's probe under one chain guard", () => {
  let solana: SolanaLocalnet;
  let sui: SuiLocalnet;
  beforeAll(async () => {
    [solana, sui] = await Promise.all([
      createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 }),
      createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 }),
    ]);
    sui.produceCheckpoint();
    await solana.waitForFinalizedSlot(1);
  });
  afterAll(async () => {
    await solana?.close();
    await sui?.close();
  });

  it("refuses to start on a fault, naming each variable", async () => {
    const error = await startChainGuard({
      service: "watcher-sui",
      probes: [
        suiProbeFromConfig({
          SUI_GRPC_URL: sui.url,
          SUI_NETWORK: "localnet",
          SUI_CHAIN_ID: "35834a8a",
          SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
          SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
          CHAIN_MAX_LAG_SECONDS: 60,
        }),
        solanaProbeFromConfig({
          SOLANA_RPC_URL: solana.rpcUrl,
          SOLANA_NETWORK: "localnet",
          SOLANA_GENESIS_HASH: solana.genesisHash,
          SOLANA_USDC_MINT: solana.mints.USDT,
          SOLANA_USDT_MINT: "x",
          CHAIN_MAX_LAG_SECONDS: 60,
        }),
      ],
      intervalMs: 60_000,
      log: createLogger({ name: "test", level: "silent" }),
    }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PreflightError);
    expect((error as PreflightError).faults.map((f) => f.variable)).toEqual([
      "SUI_CHAIN_ID",
      "SOLANA_USDT_MINT",
    ]);
    expect((error as Error).message).toMatch(
      /^watcher-sui: chain preflight failed: SUI_CHAIN_ID: .*SOLANA_USDT_MINT: /,
    );
  });
});
