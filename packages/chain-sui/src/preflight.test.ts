// The Sui probe against the local network, alone and under the chain guard: what it passes, the
// variable it names for each fault, and crediting stopped and resumed with the endpoint.
import { startChainGuard } from "@gateway/chain-preflight";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry } from "@gateway/metrics";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSuiProbe, type SuiProbeOptions } from "./preflight.js";

let sui: SuiLocalnet;

beforeAll(async () => {
  // No clock: a test decides when the next checkpoint comes, so it can let the chain go stale.
  sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 });
  sui.produceCheckpoint();
});
afterAll(async () => {
  await sui?.close();
});

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

/** A logger whose lines (pino writes one per call) are kept, parsed, for the test to read. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
  return { lines, log: createLogger({ name: "test", destination, level: "info" }) };
}

describe("the chain guard on a Sui endpoint", () => {
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
});
