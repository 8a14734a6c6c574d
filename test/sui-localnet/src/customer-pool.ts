// Many customers paying at once, for load generators that share the cores with what they load.
// `pay` is one newcomer's whole journey (the faucet twice, coin look-ups, waiting for the
// checkpoint) and costs its caller 10-20 ms of CPU a payment; here wallets are funded ahead, with
// `prepare`, and each payment is what a wallet's "send" button does: one transaction built
// offline from the coins the faucet reported, signed, and executed through SuiGrpcClient.
// A Sui coin is an object with a version, so payments in flight at once each need their own
// wallet: every prepared wallet pays once.
import { randomBytes } from "node:crypto";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeSuiAddress, toBase64 } from "@mysten/sui/utils";
import type { CoinSymbol } from "./coins.js";
import { ed25519Key, signTransactionEd25519, suiAddressOf } from "./ed25519.js";
import type { LocalnetInfo } from "./localnet.js";
import { buildPayment, type ObjectRef } from "./payment-builder.js";
import { sealedAt } from "./sealed-at.js";

export interface SuiCustomerPool {
  /** Funds `count` more wallets, each able to pay once. */
  prepare(count: number): Promise<void>;
  /** Wallets funded and not yet used. */
  readonly ready: number;
  /** Pays `baseUnits` of the pool's coin to `to` from a prepared wallet; resolves with the digest once executed. */
  pay(to: string, baseUnits: bigint): Promise<string>;
  /** When the checkpoint holding an executed transaction was sealed (ms since the epoch): final on Sui. */
  sealedAt(digest: string): Promise<number>;
}

interface PreparedWallet {
  signer: ReturnType<typeof ed25519Key>;
  owner: string;
  gas: ObjectRef;
  coin: ObjectRef;
}

/** Faucet grants run one at a time inside the network; this many requests keep it busy. */
const FUNDING_CONCURRENCY = 8;
const GAS_FUNDING = "0.05";

export async function createSuiCustomerPool(options: {
  url: string;
  /**
   * What the client executes transfers through; Node's fetch by default. A load generator that
   * shares the cores with what it measures passes a cheaper one (the pipeline bench passes the
   * services' keepAliveFetch).
   */
  fetch?: typeof fetch;
  coin?: Exclude<CoinSymbol, "SUI">;
  /** Decimal amount of the coin each wallet starts with: more than any one payment. */
  fundEach?: string;
}): Promise<SuiCustomerPool> {
  const coin = options.coin ?? "USDC";
  // Funding happens before the load it feeds, so plain fetch serves it.
  const info = (await (await fetch(`${options.url}/info`)).json()) as LocalnetInfo;
  const gasPrice = BigInt(info.referenceGasPrice);
  const client = new SuiGrpcClient({
    network: "localnet",
    baseUrl: options.url,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const wallets: PreparedWallet[] = [];

  const grant = async (owner: string, symbol: CoinSymbol, amount: string): Promise<ObjectRef> => {
    const res = await fetch(`${options.url}/faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ owner, coin: symbol, amount }),
    });
    if (!res.ok) throw new Error(`faucet refused ${amount} ${symbol}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { object: ObjectRef }).object;
  };
  const fundOne = async () => {
    // Signed with node's Ed25519: the SDK's keypair signs in JavaScript, about a millisecond of
    // this process's CPU a payment on the cores the bench shares with the cluster it measures.
    const signer = ed25519Key(randomBytes(32));
    const owner = suiAddressOf(signer.publicKey);
    const gas = await grant(owner, "SUI", GAS_FUNDING);
    const paid = await grant(owner, coin, options.fundEach ?? "100");
    wallets.push({ signer, owner, gas, coin: paid });
  };

  return {
    async prepare(count) {
      let left = count;
      await Promise.all(
        Array.from({ length: Math.min(FUNDING_CONCURRENCY, count) }, async () => {
          while (left > 0) {
            left--;
            await fundOne();
          }
        }),
      );
    },
    get ready() {
      return wallets.length;
    },
    async pay(to, baseUnits) {
      const wallet = wallets.shift();
      if (!wallet) throw new Error("no prepared Sui wallet left: call prepare() with the payments to come");
      const bytes = await buildPayment({
        sender: wallet.owner,
        gasPayment: [wallet.gas],
        gasPrice,
        gasBudget: gasPrice * 5000n,
        coins: [wallet.coin],
        amount: baseUnits,
        recipient: normalizeSuiAddress(to),
      });
      const signature = toBase64(signTransactionEd25519(wallet.signer, bytes));
      const result = await client.executeTransaction({ transaction: bytes, signatures: [signature] });
      if (!result.Transaction)
        throw new Error(`payment failed: ${result.FailedTransaction?.status.error?.message ?? "unknown"}`);
      return result.Transaction.digest;
    },
    sealedAt: (digest) => sealedAt(client, digest),
  };
}
