// Many customers paying at once, for load generators that share the cores with what they load.
// `payFromLocalWallet` is one newcomer's whole journey (a fresh wallet, the faucet, a websocket
// confirmation) and costs its caller 15-40 ms of CPU a payment; here the wallets are funded once,
// up front, and each payment is what a wallet's "send" button does: one signed transferChecked
// (with the idempotent creation of the recipient's token account) through `sendTransaction`,
// preflight on, over a kept-alive HTTP connection. Solana orders transactions that write the
// same account, so a wallet can have many payments in flight.
import { Agent, request } from "node:http";
import { compileLegacyMessage } from "@gateway/chain-tx";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { Stablecoin } from "./faucet.js";
import { generateKeypair } from "./keys.js";
import { formatUnits } from "./token.js";

export interface SolanaCustomerPool {
  /** Sends `baseUnits` of the pool's coin to the wallet `to`; resolves with the signature once the network accepted it. */
  pay(to: string, baseUnits: bigint): Promise<string>;
  close(): void;
}

const DECIMALS = 6;
/** A blockhash stays valid for 150 slots; refreshing it every half second keeps far inside that. */
const BLOCKHASH_REFRESH_MS = 500;

export async function createSolanaCustomerPool(options: {
  rpcUrl: string;
  coin?: Stablecoin;
  wallets?: number;
  /** Decimal amount of the coin each wallet starts with. */
  fundEach?: string;
}): Promise<SolanaCustomerPool> {
  const coin = options.coin ?? "USDC";
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const post = (path: string, body: unknown) => postJson(options.rpcUrl, path, body, agent);
  const rpc = async (method: string, params: unknown[]) => {
    const answer = (await post("/", { jsonrpc: "2.0", id: 1, method, params })) as {
      result?: unknown;
      error?: { message: string };
    };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  };
  const info = (await getJson(options.rpcUrl, "/info", agent)) as { mints: Record<string, string> };
  const mint = new PublicKey(info.mints[coin]!);
  // Signed with node's Ed25519 (keys.ts): web3.js signs, and checks in serialize(), with JavaScript
  // curve arithmetic, 1.5-1.8 ms of the pipeline bench's CPU a live Solana payment, on the cores it
  // shares with the cluster it measures.
  const wallets = Array.from({ length: options.wallets ?? 16 }, () => generateKeypair());
  await Promise.all(
    wallets.map(async (wallet) => {
      const owner = wallet.publicKey.toBase58();
      await post("/faucet", { owner, coin: "SOL", amount: "10" });
      await post("/faucet", { owner, coin, amount: options.fundEach ?? "100000" });
    }),
  );
  const sources = wallets.map((wallet) => getAssociatedTokenAddressSync(mint, wallet.publicKey));

  const latestBlockhash = async () =>
    ((await rpc("getLatestBlockhash", [{ commitment: "confirmed" }])) as { value: { blockhash: string } })
      .value.blockhash;
  let blockhash = await latestBlockhash();
  const refresher = setInterval(() => {
    latestBlockhash().then(
      (hash) => {
        blockhash = hash;
      },
      () => {
        // the network is busy: the current blockhash stays valid for seconds yet
      },
    );
  }, BLOCKHASH_REFRESH_MS);
  refresher.unref();

  let next = 0;
  return {
    async pay(to, baseUnits) {
      const index = next++ % wallets.length;
      const wallet = wallets[index]!;
      const owner = new PublicKey(to);
      const destination = getAssociatedTokenAddressSync(mint, owner, true);
      // Compiled as web3.js's Transaction would compile it, at a tenth of the cost (chain-tx's
      // compileLegacyMessage); the wallet is its one signer, fee payer and token owner alike.
      const message = compileLegacyMessage(wallet.publicKey, blockhash, [
        createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, destination, owner, mint),
        createTransferCheckedInstruction(
          sources[index]!,
          mint,
          destination,
          wallet.publicKey,
          baseUnits,
          DECIMALS,
        ),
      ]);
      if (message[0] !== 1) throw new Error("a customer's transfer has one signer");
      const encoded = Buffer.concat([Uint8Array.of(1), wallet.sign(message), message]).toString("base64");
      const signature = await rpc("sendTransaction", [encoded, { encoding: "base64" }]);
      if (typeof signature !== "string")
        throw new Error(`sendTransaction of ${formatUnits(baseUnits, DECIMALS)} ${coin}: no signature`);
      return signature;
    },
    close() {
      clearInterval(refresher);
      agent.destroy();
    },
  };
}

function postJson(base: string, path: string, body: unknown, agent: Agent): Promise<unknown> {
  return send(base, path, "POST", JSON.stringify(body), agent);
}

function getJson(base: string, path: string, agent: Agent): Promise<unknown> {
  return send(base, path, "GET", undefined, agent);
}

function send(base: string, path: string, method: string, body: string | undefined, agent: Agent) {
  return new Promise<unknown>((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(body);
    }
    const req = request(new URL(path, base), { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if ((res.statusCode ?? 500) >= 400) {
          reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`));
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new Error(`${method} ${path}: not JSON: ${text.slice(0, 200)}`));
        }
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
