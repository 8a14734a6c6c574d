// The Solana probe against the local network: what it passes, and the variable it names for each fault.
import type { PreflightCheck } from "@gateway/chain-preflight";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { Connection, Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSolanaProbe, type SolanaProbeOptions } from "./preflight.js";

let solana: SolanaLocalnet;

beforeAll(async () => {
  solana = await createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 });
});
afterAll(async () => {
  await solana?.close();
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

/** The variables the probe blames: those of its failed checks. */
function failed(results: PreflightCheck[]): string[] {
  return results.filter((r) => !r.ok).map((r) => r.variable);
}

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
