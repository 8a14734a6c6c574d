// The newcomer's payment: from a local wallet, funded by the faucet when short, a real
// SPL (or SOL) transfer through web3.js to an owner's associated token account, as a
// customer's wallet would send it.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  TokenAccountNotFoundError,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import type { Coin } from "./faucet.js";
import { formatUnits, parseUnits } from "./token.js";

export interface PayOptions {
  /** The network's JSON-RPC URL (its faucet and /info live there too). */
  readonly rpcUrl: string;
  readonly wsUrl: string;
  /** The recipient: a wallet (system account) address, as in a `solana:` payment link. */
  readonly to: string;
  readonly coin: Coin;
  /** A decimal amount, "12.50". */
  readonly amount: string;
  readonly wallet: Keypair;
}

export interface PayResult {
  readonly signature: string;
  readonly from: string;
  readonly to: string;
  /** The recipient's token account that received the tokens (absent for SOL). */
  readonly tokenAccount: string | null;
  readonly baseUnits: bigint;
}

/** Keeps fees and the recipient token account's rent covered. */
const MIN_FEE_BALANCE = BigInt(LAMPORTS_PER_SOL / 20);

async function faucet(rpcUrl: string, owner: string, coin: Coin, amount: string): Promise<void> {
  const response = await fetch(`${rpcUrl}/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ owner, coin, amount }),
  });
  if (!response.ok) throw new Error(`faucet refused ${amount} ${coin}: ${await response.text()}`);
}

async function mintOf(rpcUrl: string, coin: "USDC" | "USDT"): Promise<PublicKey> {
  const response = await fetch(`${rpcUrl}/info`);
  if (!response.ok)
    throw new Error(`GET ${rpcUrl}/info answered ${response.status}: is the local network running?`);
  const info = (await response.json()) as { mints: Record<string, string> };
  const mint = info.mints[coin];
  if (!mint) throw new Error(`the network has no ${coin} mint`);
  return new PublicKey(mint);
}

export async function payFromLocalWallet(options: PayOptions): Promise<PayResult> {
  const { rpcUrl, wallet, coin } = options;
  const connection = new Connection(rpcUrl, { commitment: "confirmed", wsEndpoint: options.wsUrl });
  const to = new PublicKey(options.to);
  const from = wallet.publicKey.toBase58();
  const decimals = coin === "SOL" ? 9 : 6;
  const baseUnits = parseUnits(options.amount, decimals);
  if (baseUnits <= 0n) throw new Error("the amount must be positive");

  const lamports = BigInt(await connection.getBalance(wallet.publicKey));
  const neededLamports = MIN_FEE_BALANCE + (coin === "SOL" ? baseUnits : 0n);
  if (lamports < neededLamports) {
    await faucet(rpcUrl, from, "SOL", formatUnits(neededLamports - lamports + MIN_FEE_BALANCE, 9));
  }

  if (coin === "SOL") {
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: to, lamports: baseUnits }),
    );
    const signature = await sendAndConfirmTransaction(connection, tx, [wallet]);
    return { signature, from, to: to.toBase58(), tokenAccount: null, baseUnits };
  }

  const mint = await mintOf(rpcUrl, coin);
  const source = getAssociatedTokenAddressSync(mint, wallet.publicKey);
  let held = 0n;
  try {
    held = (await getAccount(connection, source, "confirmed")).amount;
  } catch (error) {
    if (!(error instanceof TokenAccountNotFoundError)) throw error;
  }
  if (held < baseUnits) await faucet(rpcUrl, from, coin, formatUnits(baseUnits - held, decimals));

  // The recipient may be a program-derived address, hence allowOwnerOffCurve.
  const destination = getAssociatedTokenAddressSync(mint, to, true);
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(wallet.publicKey, destination, to, mint),
    createTransferCheckedInstruction(source, mint, destination, wallet.publicKey, baseUnits, decimals),
  );
  const signature = await sendAndConfirmTransaction(connection, tx, [wallet]);
  return { signature, from, to: to.toBase58(), tokenAccount: destination.toBase58(), baseUnits };
}

/** Loads a wallet file (solana-keygen's JSON array of 64 bytes), creating it on first use. */
export async function loadOrCreateWallet(path: string): Promise<Keypair> {
  try {
    const bytes = JSON.parse(await readFile(path, "utf8")) as number[];
    return Keypair.fromSecretKey(Uint8Array.from(bytes));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const wallet = Keypair.generate();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(Array.from(wallet.secretKey)), { mode: 0o600 });
  return wallet;
}
