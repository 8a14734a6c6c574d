// A service pointed at a network it was not told about, or configured with a token that network
// does not have, refuses to start: exit status 78 and a message naming the variable.
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startService } from "./processes.js";

let db: TestDatabase;
let testBus: TestBus;
let solana: SolanaLocalnet;
let sui: SuiLocalnet;

beforeAll(async () => {
  [db, testBus, solana, sui] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 }),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 }),
  ]);
  await solana.waitForFinalizedSlot(1);
});
afterAll(async () => {
  await Promise.allSettled([solana?.close(), sui?.close()]);
  await testBus?.cleanup();
  await db?.drop();
});

const infra = () => ({ DATABASE_URL: db.url, NATS_URL: testBus.natsUrl, BUS_PREFIX: testBus.prefix });
const solanaEnv = () => ({
  ...infra(),
  WATCHER_CHAIN: "solana",
  SOLANA_RPC_URL: solana.rpcUrl,
  SOLANA_NETWORK: "localnet",
  SOLANA_GENESIS_HASH: solana.genesisHash,
  WEBHOOK_AUTH_HEADER: "Bearer preflight-exit-test-header",
});
const suiEnv = () => ({
  ...infra(),
  SUI_GRPC_URL: sui.url,
  SUI_NETWORK: "localnet",
  SUI_CHAIN_ID: sui.info().chainId,
  SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
  SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
});

describe("the chain preflight at start-up", () => {
  it.each([
    {
      what: "a mainnet watcher pointed at another network",
      service: "services/watcher",
      name: "watcher-solana",
      env: () => ({ ...solanaEnv(), SOLANA_NETWORK: "mainnet", SOLANA_GENESIS_HASH: "" }),
      says: "SOLANA_GENESIS_HASH: SOLANA_RPC_URL is another network",
    },
    {
      what: "another genesis than the one declared",
      service: "services/watcher",
      name: "watcher-solana",
      env: () => ({ ...solanaEnv(), SOLANA_GENESIS_HASH: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG" }),
      says: "SOLANA_GENESIS_HASH: SOLANA_RPC_URL is another network",
    },
    {
      what: "a mint the network does not have",
      service: "services/watcher",
      name: "watcher-solana",
      env: () => ({ ...solanaEnv(), SOLANA_USDC_MINT: Keypair.generate().publicKey.toBase58() }),
      says: "SOLANA_USDC_MINT: no account",
    },
    {
      what: "another Sui chain than the one declared",
      service: "services/watcher",
      name: "watcher-sui",
      env: () => ({ ...suiEnv(), WATCHER_CHAIN: "sui", SUI_CHAIN_ID: "4c78adac" }),
      says: "SUI_CHAIN_ID: SUI_GRPC_URL is another network",
    },
    {
      what: "settlement with a coin type the Sui network does not have",
      service: "services/settlement",
      name: "settlement",
      env: () => ({
        ...suiEnv(),
        SUI_USDC_COIN_TYPE: "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC",
        SETTLEMENT_APPROVER_SEED: "ab".repeat(32),
      }),
      says: "SUI_USDC_COIN_TYPE: 0xdba34672",
    },
  ])(
    "refuses $what, naming the variable",
    async ({ service, name, env, says }) => {
      const proc = startService(service, { ...env(), HEALTH_PORT: String(await freePort()), PORT: "0" });
      const code = await new Promise<number | null>((resolve) => proc.child.once("exit", resolve));
      // Each chain's watcher runs under its own name, as it did as a service of its own.
      expect(proc.output()).toContain(`${name}: chain preflight failed:`);
      expect(proc.output()).toContain(says);
      expect(code).toBe(78);
    },
    60_000,
  );
});
