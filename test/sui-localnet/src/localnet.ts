// The local Sui network: ledger, faucet, checkpoint clock and one HTTP server that answers
// gRPC-Web (what SuiGrpcClient speaks by default) plus /faucet, /info and /healthz.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import {
  type CoinInfo,
  type CoinSymbol,
  createCoinRegistry,
  isCoinSymbol,
  parseDecimalAmount,
} from "./coins.js";
import { deriveObjectId, typedDigest } from "./digests.js";
import { createFaucet, type FaucetGrant, faucetKeypair } from "./faucet.js";
import { createGrpcWebRouter } from "./grpc-web.js";
import { type CheckpointRecord, createLedger, type Ledger } from "./ledger.js";
import { createServices } from "./services.js";

export interface SuiLocalnetOptions {
  /** Port to listen on; 0 picks a free one. Default 9000. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Checkpoint interval in ms; 0 turns the clock off (call `produceCheckpoint()`). Default 250. */
  checkpointIntervalMs?: number;
  /** Reference gas price in MIST. Default 1000. */
  referenceGasPrice?: bigint;
  /** Computation units charged per transaction (fee = units × gas price). Default 1000. */
  computationUnits?: bigint;
  /** Seeds the made-up coin package address and the faucet key. */
  seed?: string;
}

export interface LocalnetInfo {
  chainId: string;
  chain: "localnet";
  url: string;
  referenceGasPrice: string;
  checkpointIntervalMs: number;
  faucetAddress: string;
  coins: Array<{ symbol: CoinSymbol; coinType: string; decimals: number }>;
  latestCheckpoint: { sequenceNumber: string; digest: string; timestampMs: number };
}

export interface SuiLocalnet {
  /** Base URL for `new SuiGrpcClient({ network: "localnet", baseUrl: url })`. */
  url: string;
  port: number;
  ledger: Ledger;
  coins: readonly CoinInfo[];
  coinType(symbol: CoinSymbol): string;
  faucetAddress: string;
  /** Credits `amount` base units of a coin to `owner` in a real transaction. */
  fund(owner: string, symbol: CoinSymbol, amount: bigint): Promise<FaucetGrant>;
  info(): LocalnetInfo;
  /** Seals a checkpoint now (also what the clock calls). */
  produceCheckpoint(): CheckpointRecord;
  /**
   * Puts `owner` on a regulated coin's deny list (as its issuer may): from now on the address can
   * neither spend the coin nor receive it (a transfer to it fails at execution). `false` lifts it.
   */
  deny(owner: string, symbol: CoinSymbol, denied?: boolean): void;
  close(): Promise<void>;
}

const TREASURY = { SUI: 10_000_000_000n * 10n ** 9n, USDC: 10n ** 18n, USDT: 10n ** 18n } as const;

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

export async function createSuiLocalnet(options: SuiLocalnetOptions = {}): Promise<SuiLocalnet> {
  const seed = options.seed ?? "gateway-sui-localnet";
  const checkpointIntervalMs = options.checkpointIntervalMs ?? 250;
  const coins = createCoinRegistry(seed);
  const keypair = faucetKeypair(seed);
  const faucetAddress = keypair.toSuiAddress();
  const treasurySeed = typedDigest("Treasury", new TextEncoder().encode(seed));
  const ledger = createLedger({
    coins,
    genesisCoins: coins.coins.map((coin, index) => ({
      objectId: deriveObjectId(treasurySeed, index),
      owner: faucetAddress,
      coinType: coin.coinType,
      balance: TREASURY[coin.symbol],
    })),
    referenceGasPrice: options.referenceGasPrice,
    computationUnits: options.computationUnits,
  });
  const faucet = createFaucet(ledger, keypair);
  const grpc = createGrpcWebRouter(createServices(ledger));
  let url = "";

  const info = (): LocalnetInfo => {
    const latest = ledger.latestCheckpoint();
    return {
      chainId: ledger.chainId,
      chain: "localnet",
      url,
      referenceGasPrice: ledger.referenceGasPrice.toString(),
      checkpointIntervalMs,
      faucetAddress,
      coins: coins.coins.map(({ symbol, coinType, decimals }) => ({ symbol, coinType, decimals })),
      latestCheckpoint: {
        sequenceNumber: latest.sequenceNumber.toString(),
        digest: latest.digest,
        timestampMs: latest.timestampMs,
      },
    };
  };

  const handleFaucet = async (req: IncomingMessage, res: ServerResponse) => {
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return sendJson(res, 400, { error: "body must be JSON" });
    }
    const { owner, coin, amount } = (body ?? {}) as Record<string, unknown>;
    if (!isCoinSymbol(coin)) return sendJson(res, 400, { error: 'coin must be "SUI", "USDC" or "USDT"' });
    if (typeof owner !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(owner)) {
      return sendJson(res, 400, { error: "owner must be a 0x address" });
    }
    if (typeof amount !== "string") return sendJson(res, 400, { error: "amount must be a decimal string" });
    let baseUnits: bigint;
    try {
      baseUnits = parseDecimalAmount(amount, coins.bySymbol(coin).decimals);
    } catch (error) {
      return sendJson(res, 400, { error: (error as Error).message });
    }
    if (baseUnits <= 0n || baseUnits >= 2n ** 64n) {
      return sendJson(res, 400, { error: "amount must be positive and fit in a u64 of base units" });
    }
    try {
      const grant = await faucet.fund(normalizeSuiAddress(owner), coin, baseUnits);
      return sendJson(res, 200, {
        digest: grant.digest,
        owner: grant.owner,
        coin,
        coinType: grant.coinType,
        amount: grant.amount.toString(),
        object: grant.coin,
      });
    } catch (error) {
      return sendJson(res, 500, { error: (error as Error).message });
    }
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (grpc.matches(req)) {
      void grpc.handle(req, res);
      return;
    }
    if (req.method === "OPTIONS") {
      // CORS preflight for browser gRPC-Web clients.
      res.writeHead(204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "POST, GET, OPTIONS",
        "access-control-allow-headers": "*",
      });
      res.end();
      return;
    }
    if (path === "/healthz" && req.method === "GET") return sendJson(res, 200, { ok: true });
    if (path === "/info" && req.method === "GET") return sendJson(res, 200, info());
    if (path === "/faucet" && req.method === "POST") {
      void handleFaucet(req, res);
      return;
    }
    sendJson(res, 404, { error: "not found" });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 9000, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  url = `http://${options.host ?? "127.0.0.1"}:${address.port}`;

  const clock =
    checkpointIntervalMs > 0
      ? setInterval(() => ledger.produceCheckpoint(), checkpointIntervalMs)
      : undefined;

  return {
    url,
    port: address.port,
    ledger,
    coins: coins.coins,
    coinType: (symbol) => coins.bySymbol(symbol).coinType,
    faucetAddress,
    fund: (owner, symbol, amount) => faucet.fund(owner, symbol, amount),
    info,
    produceCheckpoint: () => ledger.produceCheckpoint(),
    deny: (owner, symbol, denied = true) => ledger.setDenied(owner, coins.bySymbol(symbol).coinType, denied),
    async close() {
      if (clock) clearTimeout(clock);
      // Subscriptions never end by themselves; cut them so close() returns.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
