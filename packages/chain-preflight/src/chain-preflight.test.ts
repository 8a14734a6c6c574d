import { Writable } from "node:stream";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry } from "@gateway/metrics";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Connection, Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSolanaProbe,
  createSuiProbe,
  PreflightError,
  type SolanaProbeOptions,
  type SuiProbeOptions,
  startChainGuard,
} from "./index.js";

let solana: SolanaLocalnet;
let sui: SuiLocalnet;

beforeAll(async () => {
  solana = await createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 });
  // No clock: a test decides when the next checkpoint comes, so it can let the chain go stale.
  sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 });
  sui.produceCheckpoint();
});
afterAll(async () => {
  await solana?.close();
  await sui?.close();
});

function solanaProbe(overrides: Partial<SolanaProbeOptions> = {}) {
  return createSolanaProbe({
    connection: new Connection(solana.rpcUrl, "finalized"),
    network: "localnet",
    networkId: solana.genesisHash,
    mints: { USDC: solana.mints.USDC, USDT: solana.mints.USDT },
    maxLagMs: 60_000,
    ...overrides,
  });
}

function suiProbe(overrides: Partial<SuiProbeOptions> = {}, url = sui.url) {
  return createSuiProbe({
    client: new SuiGrpcClient({ network: "localnet", baseUrl: url }),
    network: "localnet",
    networkId: sui.info().chainId,
    coinTypes: { USDC: sui.coinType("USDC"), USDT: sui.coinType("USDT") },
    maxLagMs: 60_000,
    ...overrides,
  });
}

const failed = (results: { variable: string; ok: boolean }[]) =>
  results.filter((r) => !r.ok).map((r) => r.variable);

describe("the Solana probe", () => {
  it("passes the declared local network: genesis, a recent finalized block, both mints", async () => {
    await solana.waitForFinalizedSlot(1);
    const results = await solanaProbe().run();
    expect(results.map((r) => [r.variable, r.ok])).toEqual([
      ["SOLANA_GENESIS_HASH", true],
      ["SOLANA_RPC_URL", true],
      ["SOLANA_USDC_MINT", true],
      ["SOLANA_USDT_MINT", true],
    ]);
  });

  it("refuses another genesis, naming SOLANA_GENESIS_HASH", async () => {
    const results = await solanaProbe({ networkId: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d" }).run();
    expect(failed(results)).toEqual(["SOLANA_GENESIS_HASH"]);
    expect(results[0]?.detail).toContain(`genesis ${solana.genesisHash}, not 5eykt4Us`);
  });

  it("refuses a mint the network does not have, and an account that is no mint", async () => {
    const results = await solanaProbe({
      mints: { USDC: Keypair.generate().publicKey.toBase58(), USDT: solana.faucetAddress },
    }).run();
    expect(failed(results)).toEqual(["SOLANA_USDC_MINT", "SOLANA_USDT_MINT"]);
    expect(results.find((r) => r.variable === "SOLANA_USDT_MINT")?.detail).toContain("is not a token mint");
  });

  it("names SOLANA_RPC_URL when the endpoint does not answer, and when it is stale", async () => {
    const gone = await solanaProbe({ connection: new Connection("http://127.0.0.1:9", "finalized") }).run();
    expect(failed(gone)).toEqual(["SOLANA_RPC_URL"]);
    const stale = await solanaProbe({ now: () => Date.now() + 120_000 }).run();
    expect(failed(stale)).toEqual(["SOLANA_RPC_URL"]);
    expect(stale[1]?.detail).toMatch(/stale: its newest finalized block \(slot \d+\) is 12\d s old/);
  });
});

describe("the Sui probe", () => {
  it("passes the declared local network", async () => {
    expect(failed(await suiProbe().run())).toEqual([]);
  });

  it("refuses another chain identifier (both spellings) and unknown coin types", async () => {
    for (const chainId of ["35834a8a", "4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S"]) {
      const results = await suiProbe({ networkId: chainId }).run();
      expect(failed(results)).toEqual(["SUI_CHAIN_ID"]);
      expect(results[0]?.detail).toContain("SUI_GRPC_URL is another network");
    }
    const mainnetUsdt = "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT";
    const results = await suiProbe({ coinTypes: { USDC: sui.coinType("USDC"), USDT: mainnetUsdt } }).run();
    expect(failed(results)).toEqual(["SUI_USDT_COIN_TYPE"]);
  });

  it("takes the chain identifier's short form (first four bytes in hex)", async () => {
    const { default: bs58 } = await import("bs58");
    const short = Buffer.from(bs58.decode(sui.info().chainId).subarray(0, 4)).toString("hex");
    expect(failed(await suiProbe({ networkId: short }).run())).toEqual([]);
  });
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger({ name: "test", destination, level: "info" }) };
}

describe("the chain guard", () => {
  it("refuses to start on a fault, naming each variable", async () => {
    const { log } = capture();
    const error = await startChainGuard({
      service: "watcher-sui",
      probes: [
        suiProbe({ networkId: "35834a8a" }),
        solanaProbe({ mints: { USDC: solana.mints.USDT, USDT: "x" } }),
      ],
      intervalMs: 60_000,
      log,
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

  it("stops crediting while the endpoint is stale or gone, alerts naming the variable, and resumes", async () => {
    const { lines, log } = capture();
    const metrics = createMetricsRegistry("test");
    const net = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 });
    net.produceCheckpoint();
    const probe = createSuiProbe({
      client: new SuiGrpcClient({ network: "localnet", baseUrl: net.url }),
      network: "localnet",
      networkId: net.info().chainId,
      coinTypes: { USDC: net.coinType("USDC"), USDT: net.coinType("USDT") },
      maxLagMs: 1_500,
    });
    const guard = await startChainGuard({ service: "test", probes: [probe], intervalMs: 100, log, metrics });
    try {
      expect(guard.crediting("sui")).toBe(true);
      await expect(guard.ready()).resolves.toBeUndefined();
      // No checkpoint for longer than the allowed lag: the endpoint is stale.
      await expect.poll(() => guard.crediting("sui"), { timeout: 5_000, interval: 50 }).toBe(false);
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: "chain preflight failed: crediting stopped",
          variable: "SUI_GRPC_URL",
        }),
      );
      await expect(guard.ready()).rejects.toThrow(/sui/);
      expect(await metrics.metrics()).toMatch(/gateway_chain_crediting{chain="sui"[^}]*} 0/);
      net.produceCheckpoint();
      await expect.poll(() => guard.crediting("sui"), { timeout: 5_000, interval: 50 }).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: "chain preflight passed again: crediting resumed" }),
      );
      expect(await metrics.metrics()).toMatch(/gateway_chain_crediting{chain="sui"[^}]*} 1/);
      // The network goes away altogether.
      await net.close();
      await expect.poll(() => guard.crediting("sui"), { timeout: 5_000, interval: 50 }).toBe(false);
      expect(
        guard
          .results()
          .filter((r) => !r.ok)
          .map((r) => r.variable),
      ).toEqual(["SUI_GRPC_URL"]);
      // The checks it could not run are not left reading "passed".
      const exposed = await metrics.metrics();
      expect(exposed).toMatch(/gateway_chain_preflight_ok\{[^}]*variable="SUI_GRPC_URL"[^}]*\} 0/);
      expect(exposed).not.toMatch(/gateway_chain_preflight_ok\{[^}]*SUI_USDC_COIN_TYPE/);
    } finally {
      guard.stop();
      await net.close().catch(() => {});
    }
  });

  it("counts a probe that hangs (a stopped node) as its endpoint not answering", async () => {
    const { log } = capture();
    let hang = false;
    const probe = {
      chain: "sui" as const,
      endpoint: "SUI_GRPC_URL",
      run: () =>
        hang
          ? new Promise<never>(() => {})
          : Promise.resolve([
              { chain: "sui" as const, variable: "SUI_CHAIN_ID", ok: true, detail: "same chain" },
            ]),
    };
    const guard = await startChainGuard({
      service: "test",
      probes: [probe],
      intervalMs: 50,
      timeoutMs: 300,
      log,
    });
    try {
      hang = true;
      await expect.poll(() => guard.crediting("sui"), { timeout: 3_000, interval: 50 }).toBe(false);
      expect(guard.results()).toEqual([
        {
          chain: "sui",
          variable: "SUI_GRPC_URL",
          ok: false,
          detail: "the endpoint did not answer within 0.3 s",
        },
      ]);
    } finally {
      guard.stop();
    }
  });
});
