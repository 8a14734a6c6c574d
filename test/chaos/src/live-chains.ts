// The customer's side of live payments on the local networks, over their public RPC only: fund a
// fresh wallet from the network's faucet, send a stablecoin transfer the way a wallet does, and
// read what actually happened on chain (balances and every transaction touching an address).

import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Inputs, Transaction as SuiTransaction } from "@mysten/sui/transactions";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";

export type LiveChain = "solana" | "sui";

type TokenBalance = { owner?: string; mint: string; uiTokenAmount: { amount: string } };

/** Mainnet's USDC mint, which the local Solana network serves (the services' default). */
export const SOLANA_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
/** The local Sui network's USDC type, fixed by its default seed (scripts/cluster/services.ts). */
export const SUI_USDC_TYPE = "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdc::USDC";
export const SUI_USDT_TYPE = "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdt::USDT";

/** One transaction's effect on one owner's USDC: its id and the signed change in base units. */
export interface BalanceChange {
  txid: string;
  delta: bigint;
}

export interface LiveChainClient {
  chain: LiveChain;
  /** A new customer wallet holding `usdc` base units and enough of the native coin for fees. */
  newPayer(usdc: bigint): Promise<Payer>;
  fund(owner: string, coin: "SOL" | "SUI" | "USDC", amount: string): Promise<void>;
  /** A fresh address nobody controls here (a payout destination). */
  newAddress(): string;
  usdcBalance(owner: string): Promise<bigint>;
  /** Every finalized transaction that changed `owner`'s USDC, oldest first. */
  usdcChanges(owners: string[]): Promise<Map<string, BalanceChange[]>>;
  close(): void;
}

export interface Payer {
  address: string;
  pay(to: string, amount: bigint): Promise<string>;
}

async function faucet(url: string, owner: string, coin: string, amount: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ owner, coin, amount }),
    }).catch((err: unknown) => err as Error);
    if (!(res instanceof Error) && res.ok) return;
    if (attempt >= 5) {
      const why = res instanceof Error ? res.message : `HTTP ${res.status} ${await res.text()}`;
      throw new Error(`faucet ${amount} ${coin} for ${owner}: ${why}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Base units (6 decimals) as the faucet's decimal string. */
const decimal6 = (units: bigint) =>
  `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`;

export function solanaClient(rpcUrl: string, wsUrl: string): LiveChainClient {
  const connection = new Connection(rpcUrl, { commitment: "confirmed", wsEndpoint: wsUrl });
  const mint = new PublicKey(SOLANA_USDC_MINT);
  const ata = (owner: string) => getAssociatedTokenAddressSync(mint, new PublicKey(owner), true);
  const client: LiveChainClient = {
    chain: "solana",
    fund: (owner, coin, amount) => faucet(rpcUrl, owner, coin, amount),
    async newPayer(usdc) {
      const wallet = Keypair.generate();
      const address = wallet.publicKey.toBase58();
      await client.fund(address, "SOL", "0.05");
      if (usdc > 0n) await client.fund(address, "USDC", decimal6(usdc));
      return {
        address,
        async pay(to, amount) {
          const owner = new PublicKey(to);
          const destination = ata(to);
          const tx = new Transaction().add(
            createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, destination, owner, mint),
            createTransferCheckedInstruction(ata(address), mint, destination, wallet.publicKey, amount, 6),
          );
          tx.recentBlockhash = (await connection.getLatestBlockhash("confirmed")).blockhash;
          tx.feePayer = wallet.publicKey;
          tx.sign(wallet);
          const signature = await connection.sendRawTransaction(tx.serialize());
          await waitUntil(async () => {
            const status = (await connection.getSignatureStatuses([signature])).value[0];
            if (status?.err) throw new Error(`payment ${signature} failed: ${JSON.stringify(status.err)}`);
            return status?.confirmationStatus === "finalized";
          }, `Solana transfer ${signature} finalized`);
          return signature;
        },
      };
    },
    newAddress: () => Keypair.generate().publicKey.toBase58(),
    async usdcBalance(owner) {
      const info = await connection.getTokenAccountBalance(ata(owner), "finalized").catch(() => null);
      return info ? BigInt(info.value.amount) : 0n;
    },
    async usdcChanges(owners) {
      const changes = new Map<string, BalanceChange[]>();
      for (const owner of owners) {
        const account = ata(owner);
        const signatures = await connection.getSignaturesForAddress(account, { limit: 1000 }, "finalized");
        const list: BalanceChange[] = [];
        for (const { signature, err } of signatures.reverse()) {
          if (err) continue;
          const tx = await connection.getTransaction(signature, {
            commitment: "finalized",
            maxSupportedTransactionVersion: 0,
          });
          const amount = (balances: TokenBalance[] | null | undefined) =>
            (balances ?? [])
              .filter((b) => b.owner === owner && b.mint === SOLANA_USDC_MINT)
              .reduce((sum, b) => sum + BigInt(b.uiTokenAmount.amount), 0n);
          const delta = amount(tx?.meta?.postTokenBalances) - amount(tx?.meta?.preTokenBalances);
          if (delta !== 0n) list.push({ txid: signature, delta });
        }
        changes.set(owner, list);
      }
      return changes;
    },
    close() {},
  };
  return client;
}

export function suiClient(url: string): LiveChainClient {
  const client = new SuiGrpcClient({ network: "localnet", baseUrl: url });
  const coinRefs = async (owner: string, coinType: string) =>
    (await client.listCoins({ owner, coinType })).objects.map(({ objectId, version, digest }) => ({
      objectId,
      version,
      digest,
    }));
  const chain: LiveChainClient = {
    chain: "sui",
    fund: (owner, coin, amount) => faucet(url, owner, coin, amount),
    async newPayer(usdc) {
      const keypair = new Ed25519Keypair();
      const address = keypair.toSuiAddress();
      await chain.fund(address, "SUI", "0.1");
      if (usdc > 0n) await chain.fund(address, "USDC", decimal6(usdc));
      return {
        address,
        async pay(to, amount) {
          const tx = new SuiTransaction();
          tx.setSender(address);
          tx.setGasPayment(await coinRefs(address, "0x2::sui::SUI"));
          tx.setGasPrice(1000n);
          tx.setGasBudget(5_000_000n);
          const [first, ...rest] = (await coinRefs(address, SUI_USDC_TYPE)).map((ref) =>
            tx.object(Inputs.ObjectRef(ref)),
          );
          if (!first) throw new Error(`${address} has no USDC`);
          if (rest.length > 0) tx.mergeCoins(first, rest);
          const [part] = tx.splitCoins(first, [tx.pure.u64(amount)]);
          tx.transferObjects([part!], tx.pure.address(to));
          const bytes = await tx.build();
          const { signature } = await keypair.signTransaction(bytes);
          const result = await client.executeTransaction({ transaction: bytes, signatures: [signature] });
          if (!result.Transaction?.status.success) throw new Error(`Sui payment to ${to} failed`);
          return result.Transaction.digest;
        },
      };
    },
    newAddress: () => new Ed25519Keypair().toSuiAddress(),
    async usdcBalance(owner) {
      return BigInt((await client.getBalance({ owner, coinType: SUI_USDC_TYPE })).balance.balance);
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
      const usdc = normalizeType(SUI_USDC_TYPE);
      for (let sequence = 0n; sequence <= height; sequence++) {
        const { response } = await client.ledgerService.getCheckpoint({
          checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: sequence },
          readMask: { paths: ["transactions.digest", "transactions.balance_changes"] },
        });
        for (const tx of response.checkpoint?.transactions ?? []) {
          for (const change of tx.balanceChanges) {
            const owner = wanted.get(normalizeSuiAddress(change.address ?? "0x0"));
            if (!owner || normalizeType(change.coinType ?? "") !== usdc) continue;
            changes.get(owner)!.push({ txid: tx.digest ?? "", delta: BigInt(change.amount ?? "0") });
          }
        }
      }
      return changes;
    },
    close() {
      // The gRPC-Web transport holds no connection between calls.
    },
  };
  return chain;
}

function normalizeType(type: string): string {
  const [address, ...rest] = type.split("::");
  return [normalizeSuiAddress(address ?? ""), ...rest].join("::");
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
