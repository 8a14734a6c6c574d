// Customers' wallets on the local networks, paying deposit addresses through the chains' RPC
// with the libraries a real wallet uses (@solana/web3.js, @mysten/sui).
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Inputs, Transaction as SuiTransaction } from "@mysten/sui/transactions";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey, sendAndConfirmTransaction, Transaction } from "@solana/web3.js";

async function faucet(url: string, owner: string, coin: string, amount: string): Promise<void> {
  const res = await fetch(`${url}/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ owner, coin, amount }),
  });
  if (!res.ok)
    throw new Error(`faucet ${amount} ${coin} for ${owner}: HTTP ${res.status} ${await res.text()}`);
}

export interface ChainPayer {
  /** Sends `baseUnits` of USDC to the wallet `to`; resolves once the chain has executed it. */
  pay(to: string, baseUnits: bigint): Promise<string>;
  close(): void;
}

/**
 * A few well-funded Solana wallets used in turn: one transfer per payment, many in flight at
 * once (each transaction has its own signature, so one wallet may have several pending).
 */
export async function createSolanaPayer(options: {
  rpcUrl: string;
  wsUrl: string;
  wallets?: number;
}): Promise<ChainPayer> {
  const connection = new Connection(options.rpcUrl, { commitment: "confirmed", wsEndpoint: options.wsUrl });
  const info = (await (await fetch(`${options.rpcUrl}/info`)).json()) as { mints: { USDC: string } };
  const mint = new PublicKey(info.mints.USDC);
  const wallets = Array.from({ length: options.wallets ?? 4 }, () => Keypair.generate());
  for (const wallet of wallets) {
    await faucet(options.rpcUrl, wallet.publicKey.toBase58(), "SOL", "5000");
    await faucet(options.rpcUrl, wallet.publicKey.toBase58(), "USDC", "10000000");
  }
  let next = 0;
  return {
    async pay(to, baseUnits) {
      const wallet = wallets[next++ % wallets.length]!;
      const owner = new PublicKey(to);
      const source = getAssociatedTokenAddressSync(mint, wallet.publicKey);
      const destination = getAssociatedTokenAddressSync(mint, owner, true);
      const tx = new Transaction().add(
        createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, destination, owner, mint),
        createTransferCheckedInstruction(source, mint, destination, wallet.publicKey, baseUnits, 6),
      );
      return sendAndConfirmTransaction(connection, tx, [wallet], { commitment: "confirmed" });
    },
    close() {
      // web3.js closes its WebSocket once no subscription is left; nothing else to release.
    },
  };
}

/**
 * Sui coins are objects that one transaction at a time may use, so each payment comes from a
 * fresh wallet funded by the faucet (USDC for the amount, SUI for gas), as pay.ts does.
 */
export async function createSuiPayer(options: { url: string }): Promise<ChainPayer> {
  const client = new SuiGrpcClient({ network: "localnet", baseUrl: options.url });
  const info = (await (await fetch(`${options.url}/info`)).json()) as {
    coins: { symbol: string; coinType: string; decimals: number }[];
  };
  const typeOf = (symbol: string) => info.coins.find((coin) => coin.symbol === symbol)!.coinType;
  const gasPrice = BigInt((await client.getReferenceGasPrice()).referenceGasPrice);
  const refs = async (owner: string, coinType: string) =>
    (await client.listCoins({ owner, coinType, limit: 100 })).objects.map(
      ({ objectId, version, digest }) => ({
        objectId,
        version,
        digest,
      }),
    );
  return {
    async pay(to, baseUnits) {
      const payer = new Ed25519Keypair();
      const owner = payer.toSuiAddress();
      const whole = `${baseUnits / 1_000_000n}.${(baseUnits % 1_000_000n).toString().padStart(6, "0")}`;
      await faucet(options.url, owner, "USDC", whole);
      await faucet(options.url, owner, "SUI", "0.05");
      const [coins, gas] = await Promise.all([refs(owner, typeOf("USDC")), refs(owner, typeOf("SUI"))]);
      const tx = new SuiTransaction();
      tx.setSender(owner);
      tx.setGasPayment(gas);
      tx.setGasPrice(gasPrice);
      tx.setGasBudget(gasPrice * 5000n);
      const [first, ...rest] = coins.map((ref) => tx.object(Inputs.ObjectRef(ref)));
      if (!first) throw new Error(`the faucet gave ${owner} no USDC`);
      if (rest.length > 0) tx.mergeCoins(first, rest);
      const [paid] = tx.splitCoins(first, [tx.pure.u64(baseUnits)]);
      tx.transferObjects([paid!], tx.pure.address(normalizeSuiAddress(to)));
      const bytes = await tx.build();
      const { signature } = await payer.signTransaction(bytes);
      const result = await client.executeTransaction({ transaction: bytes, signatures: [signature] });
      if (!result.Transaction)
        throw new Error(
          `Sui payment failed: ${result.FailedTransaction?.status.error?.message ?? "unknown"}`,
        );
      return result.Transaction.digest;
    },
    close() {},
  };
}
