// One local Solana network: the chain, its slot clock, the RPC and WebSocket servers,
// the faucet and the provider webhooks, started and stopped together.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { getBase58Decoder } from "@solana/kit";
import { type Chain, createChain } from "./chain.js";
import { type Coin, createFaucet, type Stablecoin } from "./faucet.js";
import { createHttpServer } from "./http-server.js";
import { createPubSub } from "./pubsub.js";
import { createRpcMethods } from "./rpc.js";
import { createWebhooks, type Webhooks } from "./webhooks.js";

export interface SolanaLocalnetOptions {
  /** Interface to listen on; 127.0.0.1 unless set. */
  readonly host?: string;
  /** JSON-RPC HTTP port; 8899 by default, 0 for a random free port. */
  readonly rpcPort?: number;
  /** WebSocket PubSub port; 8900 by default, 0 for a random free port. */
  readonly wsPort?: number;
  /** A new slot every this many milliseconds (default 50); 0 stops the clock (use `advanceSlots`). */
  readonly slotMs?: number;
  /** A slot is finalized this many slots after it was produced (default 8). */
  readonly finalitySlots?: number;
  /**
   * A blockhash stays usable for this many slots. By default as long as on mainnet
   * (150 slots of 400 ms: 60 s), and never under 150 slots: web3.js reuses a fetched
   * blockhash for up to 30 s, so a shorter life breaks `sendTransaction` with signers.
   */
  readonly blockhashExpirySlots?: number;
  /** Retries after a failed webhook delivery (default 3) and the pause between them (default 60 s). */
  readonly webhookRetries?: number;
  readonly webhookRetryDelayMs?: number;
  /** How long a delivery may take before it counts as failed (default 5 s). */
  readonly webhookTimeoutMs?: number;
  /** When set, `/v0/webhooks` wants `?api-key=<this>`. */
  readonly webhookApiKey?: string;
  /** Mint addresses; mainnet's USDC and USDT addresses by default. */
  readonly mints?: Partial<Record<Stablecoin, string>>;
}

export interface SolanaLocalnet {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly rpcPort: number;
  readonly wsPort: number;
  readonly mints: Readonly<Record<Stablecoin, string>>;
  readonly faucetAddress: string;
  readonly mintAuthority: string;
  readonly genesisHash: string;
  readonly chain: Chain;
  readonly webhooks: Webhooks;
  slot(): number;
  finalizedSlot(): number;
  /** The faucet, as `POST /faucet` does it: returns the transaction signature. */
  fund(owner: string, coin: Coin, amount: string): string;
  /** Produces n slots at once (useful with `slotMs: 0`, or to reach finality quickly). */
  advanceSlots(count: number): void;
  /** Resolves once the finalized slot reaches `slot`. */
  waitForFinalizedSlot(slot: number): Promise<void>;
  info(): LocalnetInfo;
  close(): Promise<void>;
}

export interface LocalnetInfo {
  mints: Readonly<Record<Stablecoin, string>>;
  decimals: number;
  slot: number;
  finalizedSlot: number;
  slotMs: number;
  finalitySlots: number;
  blockhashExpirySlots: number;
  rpcUrl: string;
  wsUrl: string;
  faucet: string;
  mintAuthority: string;
  genesisHash: string;
  transactionCount: number;
}

export async function createSolanaLocalnet(options: SolanaLocalnetOptions = {}): Promise<SolanaLocalnet> {
  const host = options.host ?? "127.0.0.1";
  const slotMs = options.slotMs ?? 50;
  const finalitySlots = options.finalitySlots ?? 8;
  const blockhashExpirySlots =
    options.blockhashExpirySlots ?? (slotMs > 0 ? Math.max(150, Math.ceil(60_000 / slotMs)) : 150);
  const chain = createChain({ finalitySlots, blockhashExpirySlots });
  const faucet = createFaucet({ chain, ...(options.mints ? { mints: options.mints } : {}) });
  const genesisHash = getBase58Decoder().decode(randomBytes(32));
  const webhooks = createWebhooks({
    chain,
    ...(options.webhookRetries === undefined ? {} : { retries: options.webhookRetries }),
    ...(options.webhookRetryDelayMs === undefined ? {} : { retryDelayMs: options.webhookRetryDelayMs }),
    ...(options.webhookTimeoutMs === undefined ? {} : { timeoutMs: options.webhookTimeoutMs }),
  });

  let rpcUrl = "";
  let wsUrl = "";
  const info = (): LocalnetInfo => ({
    mints: faucet.mints,
    decimals: 6,
    slot: chain.slot(),
    finalizedSlot: chain.finalizedSlot(),
    slotMs,
    finalitySlots,
    blockhashExpirySlots,
    rpcUrl,
    wsUrl,
    faucet: faucet.faucetAddress,
    mintAuthority: faucet.mintAuthority,
    genesisHash,
    transactionCount: chain.transactionCount(),
  });

  const server = createHttpServer({
    rpcMethods: createRpcMethods({ chain, faucet, genesisHash }),
    webhooks,
    fund: faucet.fund,
    info,
    advanceSlots: (count) => {
      for (let i = 0; i < count; i += 1) chain.advanceSlot();
      return { slot: chain.slot(), finalizedSlot: chain.finalizedSlot() };
    },
    ...(options.webhookApiKey === undefined ? {} : { apiKey: options.webhookApiKey }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.rpcPort ?? 8899, host, () => resolve());
  });
  let pubsub: Awaited<ReturnType<typeof createPubSub>>;
  try {
    pubsub = await createPubSub({ chain, host, port: options.wsPort ?? 8900 });
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  const rpcPort = (server.address() as AddressInfo).port;
  rpcUrl = `http://${host}:${rpcPort}`;
  wsUrl = `ws://${host}:${pubsub.port}`;

  const finalityWaiters = new Set<{ slot: number; resolve: () => void }>();
  const offSlot = chain.on("slot", (_slot, finalizedSlot) => {
    for (const waiter of finalityWaiters) {
      if (finalizedSlot >= waiter.slot) {
        finalityWaiters.delete(waiter);
        waiter.resolve();
      }
    }
  });
  const ticker = slotMs > 0 ? setInterval(() => chain.advanceSlot(), slotMs) : null;
  ticker?.unref();

  return {
    rpcUrl,
    wsUrl,
    rpcPort,
    wsPort: pubsub.port,
    mints: faucet.mints,
    faucetAddress: faucet.faucetAddress,
    mintAuthority: faucet.mintAuthority,
    genesisHash,
    chain,
    webhooks,
    slot: () => chain.slot(),
    finalizedSlot: () => chain.finalizedSlot(),
    fund: faucet.fund,
    advanceSlots(count) {
      for (let i = 0; i < count; i += 1) chain.advanceSlot();
    },
    waitForFinalizedSlot: (slot) =>
      new Promise<void>((resolve) => {
        if (chain.finalizedSlot() >= slot) return resolve();
        finalityWaiters.add({ slot, resolve });
      }),
    info,
    async close() {
      if (ticker) clearInterval(ticker);
      offSlot();
      webhooks.close();
      await pubsub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
