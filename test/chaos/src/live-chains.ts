// The customer's side of live payments on the local networks, over their public RPC only: a
// fresh wallet pays through the networks' own pay helpers (funded by their faucets), and what
// actually happened on chain is read back (balances, every transaction touching an address).

import { formatUnits, payFromLocalWallet, type LocalnetInfo as SolanaInfo } from "@gateway/solana-localnet";
import { type LocalnetInfo as SuiInfo, pay as suiPay } from "@gateway/sui-localnet";
import type { SuiGrpcClient as SuiClient } from "@mysten/sui/grpc";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";

export type LiveChain = "solana" | "sui";

/** One transaction's effect on one owner's USDC: its id and the signed change in base units. */
export interface BalanceChange {
  txid: string;
  delta: bigint;
}

export interface LiveChainClient {
  chain: LiveChain;
  /** A new customer wallet; each payment is funded from the faucet with what it sends. */
  newPayer(): Payer;
  /** A fresh address nobody controls here (a payout destination). */
  newAddress(): string;
  usdcBalance(owner: string): Promise<bigint>;
  /** Every finalized transaction that changed each owner's USDC, oldest first. */
  usdcChanges(owners: string[]): Promise<Map<string, BalanceChange[]>>;
}

export interface Payer {
  address: string;
  /** Sends `amount` USDC base units to `to`; resolves once the chain has executed it. */
  pay(to: string, amount: bigint): Promise<void>;
}

type TokenBalance = { owner?: string; mint: string; uiTokenAmount: { amount: string } };

async function info<T>(url: string): Promise<T> {
  const res = await fetch(`${url}/info`);
  if (!res.ok) throw new Error(`GET ${url}/info answered ${res.status}`);
  return (await res.json()) as T;
}

export async function solanaClient(rpcUrl: string, wsUrl: string): Promise<LiveChainClient> {
  const connection = new Connection(rpcUrl, { commitment: "confirmed", wsEndpoint: wsUrl });
  const usdc = (await info<SolanaInfo>(rpcUrl)).mints.USDC;
  const mint = new PublicKey(usdc);
  const ata = (owner: string) => getAssociatedTokenAddressSync(mint, new PublicKey(owner), true);
  return {
    chain: "solana",
    newPayer() {
      const wallet = Keypair.generate();
      return {
        address: wallet.publicKey.toBase58(),
        async pay(to, amount) {
          await payFromLocalWallet({
            rpcUrl,
            wsUrl,
            to,
            coin: "USDC",
            amount: formatUnits(amount, 6),
            wallet,
          });
        },
      };
    },
    newAddress: () => Keypair.generate().publicKey.toBase58(),
    async usdcBalance(owner) {
      const balance = await connection.getTokenAccountBalance(ata(owner), "finalized").catch(() => null);
      return balance ? BigInt(balance.value.amount) : 0n;
    },
    async usdcChanges(owners) {
      const changes = new Map<string, BalanceChange[]>();
      for (const owner of owners) {
        const signatures = await connection.getSignaturesForAddress(ata(owner), { limit: 1000 }, "finalized");
        const list: BalanceChange[] = [];
        for (const { signature, err } of signatures.reverse()) {
          if (err) continue;
          const tx = await connection.getTransaction(signature, {
            commitment: "finalized",
            maxSupportedTransactionVersion: 0,
          });
          const held = (balances: TokenBalance[] | null | undefined) =>
            (balances ?? [])
              .filter((b) => b.owner === owner && b.mint === usdc)
              .reduce((sum, b) => sum + BigInt(b.uiTokenAmount.amount), 0n);
          const delta = held(tx?.meta?.postTokenBalances) - held(tx?.meta?.preTokenBalances);
          if (delta !== 0n) list.push({ txid: signature, delta });
        }
        changes.set(owner, list);
      }
      return changes;
    },
  };
}

export async function suiClient(
  url: string,
): Promise<LiveChainClient & { usdcType: string; usdtType: string }> {
  const client: SuiClient = new SuiGrpcClient({ network: "localnet", baseUrl: url });
  const { coins } = await info<SuiInfo>(url);
  const typeOf = (symbol: string) => normalizeStructTag(coins.find((c) => c.symbol === symbol)!.coinType);
  const usdcType = typeOf("USDC");
  return {
    chain: "sui",
    usdcType,
    usdtType: typeOf("USDT"),
    newPayer() {
      const payer = new Ed25519Keypair();
      return {
        address: payer.toSuiAddress(),
        async pay(to, amount) {
          await suiPay({ url, to, coin: "USDC", amount: formatUnits(amount, 6), payer });
        },
      };
    },
    newAddress: () => new Ed25519Keypair().toSuiAddress(),
    async usdcBalance(owner) {
      return BigInt((await client.getBalance({ owner, coinType: usdcType })).balance.balance);
    },
    async usdcChanges(owners) {
      // Sui has no per-address history call: read every checkpoint's balance changes, which is
      // what the watcher reads too. The local network is small enough to read whole.
      const wanted = new Map(owners.map((o) => [normalizeSuiAddress(o), o]));
      const changes = new Map<string, BalanceChange[]>(owners.map((o) => [o, []]));
      const latest = await client.ledgerService.getCheckpoint({
        checkpointId: { oneofKind: undefined },
        readMask: { paths: ["sequence_number"] },
      });
      const height = latest.response.checkpoint?.sequenceNumber ?? 0n;
      for (let sequence = 0n; sequence <= height; sequence++) {
        const { response } = await client.ledgerService.getCheckpoint({
          checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: sequence },
          readMask: { paths: ["transactions.digest", "transactions.balance_changes"] },
        });
        for (const tx of response.checkpoint?.transactions ?? []) {
          for (const change of tx.balanceChanges) {
            const owner = wanted.get(normalizeSuiAddress(change.address ?? "0x0"));
            if (!owner || normalizeStructTag(change.coinType ?? "0x2::x::X") !== usdcType) continue;
            changes.get(owner)!.push({ txid: tx.digest ?? "", delta: BigInt(change.amount ?? "0") });
          }
        }
      }
      return changes;
    },
  };
}
