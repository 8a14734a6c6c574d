// The network's own money: USDC and USDT mints whose authority the network holds, and a
// funded faucet wallet. Every airdrop and mint is a real signed transaction, so it has a
// signature, balances in getTransaction, and reaches webhooks like any other transfer.

import { address, getBase58Decoder } from "@solana/kit";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { ComputeBudgetProgram, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import type { Chain } from "./chain.js";
import { invalidParams } from "./errors.js";
import { keypairFromLabel, type LocalKeypair, signTransaction } from "./keys.js";
import { MINT_SIZE, parseUnits, TOKEN_PROGRAM_ID } from "./token.js";

export type Coin = "USDC" | "USDT" | "SOL";
export const STABLECOINS = ["USDC", "USDT"] as const;
export type Stablecoin = (typeof STABLECOINS)[number];

/** Mainnet's mint addresses, so code configured for mainnet finds its mints here unchanged. */
export const MAINNET_MINTS: Record<Stablecoin, string> = {
  USDC: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  USDT: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
};
export const STABLECOIN_DECIMALS = 6;
const base58 = getBase58Decoder();
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;

export interface Faucet {
  readonly faucetAddress: string;
  readonly mintAuthority: string;
  readonly mints: Readonly<Record<Stablecoin, string>>;
  airdrop(owner: string, lamports: bigint): string;
  /** Mints to the owner's associated token account, creating it if needed. */
  mint(owner: string, coin: Stablecoin, amount: bigint): string;
  /** `coin` and a decimal amount as a person types them ("12.50"). */
  fund(owner: string, coin: Coin, amount: string): string;
}

function mintAccountData(authority: PublicKey): Uint8Array {
  const data = Buffer.alloc(MINT_SIZE);
  data.writeUInt32LE(1, 0);
  authority.toBuffer().copy(data, 4);
  data.writeBigUInt64LE(0n, 36);
  data[44] = STABLECOIN_DECIMALS;
  data[45] = 1;
  return data;
}

export function createFaucet(options: {
  chain: Chain;
  mints?: Partial<Record<Stablecoin, string>>;
  faucetKeypair?: LocalKeypair;
  mintAuthority?: LocalKeypair;
}): Faucet {
  const { chain } = options;
  const faucet = options.faucetKeypair ?? keypairFromLabel("faucet");
  const authority = options.mintAuthority ?? keypairFromLabel("mint-authority");
  const mints: Record<Stablecoin, string> = { ...MAINNET_MINTS, ...options.mints };
  const rent = chain.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));

  // Genesis state, written directly as a cluster's genesis would be.
  chain.svm.setAccount({
    address: address(faucet.publicKey.toBase58()),
    lamports: FAUCET_LAMPORTS as never,
    data: new Uint8Array(),
    programAddress: address(SystemProgram.programId.toBase58()),
    executable: false,
    space: 0n,
  });
  for (const mint of Object.values(mints)) {
    chain.svm.setAccount({
      address: address(mint),
      lamports: rent as never,
      data: mintAccountData(authority.publicKey),
      programAddress: address(TOKEN_PROGRAM_ID),
      executable: false,
      space: BigInt(MINT_SIZE),
    });
  }

  let uniqueness = 0;
  function send(build: () => Transaction, signers: LocalKeypair[]): string {
    const blockhash = chain.latestBlockhash("processed").blockhash;
    let tx = build();
    // The same request twice in one slot would be the same transaction, which the
    // cluster refuses as already processed; a distinct compute-unit limit (no price,
    // so no fee change) makes it a new one.
    for (;;) {
      tx.feePayer = faucet.publicKey;
      tx.recentBlockhash = blockhash;
      const bytes = signTransaction(tx, signers);
      const signature = tx.signature ? base58.decode(tx.signature) : "";
      if (!chain.getTransaction(signature)) return chain.sendTransaction(bytes, { skipPreflight: false });
      uniqueness = (uniqueness + 1) % 100_000;
      tx = build();
      tx.instructions.unshift(ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 - uniqueness }));
    }
  }

  function airdrop(owner: string, lamports: bigint): string {
    const build = () =>
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: faucet.publicKey, toPubkey: new PublicKey(owner), lamports }),
      );
    return send(build, [faucet]);
  }

  function mint(owner: string, coin: Stablecoin, amount: bigint): string {
    const mintKey = new PublicKey(mints[coin]);
    const ownerKey = new PublicKey(owner);
    const ata = getAssociatedTokenAddressSync(mintKey, ownerKey, true);
    const build = () =>
      new Transaction().add(
        createAssociatedTokenAccountIdempotentInstruction(faucet.publicKey, ata, ownerKey, mintKey),
        createMintToCheckedInstruction(mintKey, ata, authority.publicKey, amount, STABLECOIN_DECIMALS),
      );
    return send(build, [faucet, authority]);
  }

  function fund(owner: string, coin: Coin, amount: string): string {
    let ownerKey: PublicKey;
    try {
      ownerKey = new PublicKey(owner);
    } catch {
      throw invalidParams("owner is not a base-58 public key");
    }
    let units: bigint;
    try {
      units = parseUnits(amount, coin === "SOL" ? 9 : STABLECOIN_DECIMALS);
    } catch (cause) {
      throw invalidParams(cause instanceof Error ? cause.message : String(cause));
    }
    if (units <= 0n) throw invalidParams("amount must be positive");
    if (coin === "SOL") return airdrop(ownerKey.toBase58(), units);
    if (coin === "USDC" || coin === "USDT") return mint(ownerKey.toBase58(), coin, units);
    throw invalidParams(`unknown coin ${JSON.stringify(coin)}: USDC, USDT or SOL`);
  }

  return {
    faucetAddress: faucet.publicKey.toBase58(),
    mintAuthority: authority.publicKey.toBase58(),
    mints,
    airdrop,
    mint,
    fund,
  };
}
