// `npm run doctor` against a complete local live configuration (every check green), and against a
// deliberately wrong one (each fault named by its variable, exit status 1).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createHeliusRegistry } from "@gateway/chain-solana/watcher";
import { createPriceServer, type PriceServer } from "@gateway/price-server";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../../scripts/doctor/run-doctor.js";
import { freePort, ROOT } from "./processes.js";

let db: TestDatabase;
let testBus: TestBus;
let signer: TestSigner;
let solana: SolanaLocalnet;
let sui: SuiLocalnet;
let prices: PriceServer;
const WATCHER_URL = "http://127.0.0.1:3104/webhooks/solana";
const AUTH = "Bearer doctor-test-provider-header";

beforeAll(async () => {
  [db, testBus, signer, solana, sui, prices] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    startTestSigner(),
    createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 }),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 }),
    createPriceServer(),
  ]);
  // What an operator does once before going live: fund the gas wallets, create the vault's token
  // accounts, and (the watcher does it at start) register the provider webhook.
  const book = await signer.client.getServiceAddresses();
  solana.fund(book.solana.live.gas, "SOL", "1");
  solana.fund(book.solana.live.vault, "USDC", "0.000001");
  solana.fund(book.solana.live.vault, "USDT", "0.000001");
  await sui.fund(book.sui.live.gas, "SUI", 2_000_000_000n);
  await createHeliusRegistry({ baseUrl: solana.rpcUrl, webhookUrl: WATCHER_URL, authHeader: AUTH }).sync([]);
  await solana.waitForFinalizedSlot(solana.slot());
});
afterAll(async () => {
  await Promise.allSettled([solana?.close(), sui?.close(), prices?.close(), signer?.close()]);
  await testBus?.cleanup();
  await db?.drop();
});

/** A live configuration of every service, on the local networks declared as such. */
function liveEnv(): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    NATS_URL: testBus.natsUrl,
    BUS_PREFIX: testBus.prefix,
    JWT_SECRET: "doctor-test-secret-doctor-test-secret",
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    SIGNER_URL: signer.url,
    SIGNER_CA_FILE: signer.tls.settlement.ca,
    SIGNER_CERT_FILE: signer.tls.settlement.cert,
    SIGNER_KEY_FILE: signer.tls.settlement.key,
    SETTLEMENT_APPROVER_SEED: signer.approvers.settlement.seedHex,
    SOLANA_RPC_URL: solana.rpcUrl,
    SOLANA_NETWORK: "localnet",
    SOLANA_GENESIS_HASH: solana.genesisHash,
    SUI_GRPC_URL: sui.url,
    SUI_NETWORK: "localnet",
    SUI_CHAIN_ID: sui.info().chainId,
    SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
    SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
    WEBHOOK_AUTH_HEADER: AUTH,
    PROVIDER_API_URL: solana.rpcUrl,
    WATCHER_PUBLIC_URL: WATCHER_URL,
    PRICE_PYTH_URL: prices.sourceUrls.pyth,
    PRICE_COINBASE_URL: prices.sourceUrls.coinbase,
    PRICE_KRAKEN_URL: prices.sourceUrls.kraken,
  };
}

const execFileAsync = promisify(execFile);
async function doctorProcess(env: Record<string, string>) {
  try {
    const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", "scripts/doctor.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    return { code: 0, stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe("gateway doctor", () => {
  it("prints all green for a complete live configuration on the declared local networks", async () => {
    const findings = await runDoctor(liveEnv());
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    const topics = new Set(findings.map((f) => f.topic));
    for (const topic of ["configuration", "solana", "sui", "database", "nats", "signer certificates"]) {
      expect(topics).toContain(topic);
    }
    for (const topic of ["signer", "wallets", "webhook provider", "prices"]) expect(topics).toContain(topic);
    const { code, stdout } = await doctorProcess(liveEnv());
    expect(stdout).toMatch(/all \d+ checks passed/);
    expect(code).toBe(0);
  });

  it("names each fault of a deliberately wrong configuration, and exits 1", async () => {
    const closed = await freePort();
    const wrong = {
      ...liveEnv(),
      // A live configuration left at mainnet, pointed at a node of another network.
      SOLANA_NETWORK: "mainnet",
      SOLANA_GENESIS_HASH: "",
      // A coin type this network does not have.
      SUI_USDT_COIN_TYPE: "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT",
      JWT_SECRET: "short",
      SIGNER_KEY_FILE: signer.tls.api.key,
      NATS_URL: `nats://127.0.0.1:${closed}`,
      WATCHER_PUBLIC_URL: "https://watcher.example.test/webhooks/solana",
      PRICE_KRAKEN_URL: `http://127.0.0.1:${closed}/kraken`,
    };
    const findings = await runDoctor(wrong);
    const faults = findings.filter((f) => !f.ok);
    expect(new Set(faults.map((f) => f.variable))).toEqual(
      new Set([
        "SOLANA_GENESIS_HASH",
        "SUI_USDT_COIN_TYPE",
        "JWT_SECRET",
        "SIGNER_KEY_FILE",
        "SIGNER_URL",
        "NATS_URL",
        "WATCHER_PUBLIC_URL",
        "PRICE_KRAKEN_URL",
      ]),
    );
    const about = (variable: string) => faults.find((f) => f.variable === variable)?.text;
    expect(about("SOLANA_GENESIS_HASH")).toContain("SOLANA_RPC_URL is another network");
    expect(about("SOLANA_GENESIS_HASH")).toContain("Solana mainnet");
    expect(about("SUI_USDT_COIN_TYPE")).toContain("is unknown on this network");
    expect(about("JWT_SECRET")).toContain("at least 32 characters (api)");
    expect(about("SIGNER_KEY_FILE")).toBe("this key is not the client certificate's");
    const { code, stdout } = await doctorProcess(wrong);
    expect(code).toBe(1);
    expect(stdout).toContain(
      "✗ WRONG solana             SOLANA_GENESIS_HASH: SOLANA_RPC_URL is another network",
    );
    expect(stdout).toMatch(/\d+ of \d+ checks failed: fix each variable named above/);
  });
});
