import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSolanaLocalnet, type SolanaLocalnet } from "./index.js";
import { loadOrCreateWallet, payFromLocalWallet } from "./pay.js";

let net: SolanaLocalnet;
let dir: string;

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 20 });
  dir = await mkdtemp(join(tmpdir(), "solana-localnet-pay-"));
});

afterAll(async () => {
  await net.close();
  await rm(dir, { recursive: true, force: true });
});

describe("pay from a local wallet", () => {
  it("funds the wallet from the faucet and pays USDC to the recipient's token account", async () => {
    const walletPath = join(dir, "wallet.json");
    const wallet = await loadOrCreateWallet(walletPath);
    expect((await loadOrCreateWallet(walletPath)).publicKey.toBase58()).toBe(wallet.publicKey.toBase58());
    const recipient = Keypair.generate().publicKey;
    const connection = new Connection(net.rpcUrl, "confirmed");

    const first = await payFromLocalWallet({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      to: recipient.toBase58(),
      coin: "USDC",
      amount: "12.50",
      wallet,
    });
    const ata = getAssociatedTokenAddressSync(new PublicKey(net.mints.USDC), recipient);
    expect(first.tokenAccount).toBe(ata.toBase58());
    expect(first.baseUnits).toBe(12_500_000n);
    // Paying again reuses the recipient's token account (created idempotently).
    await payFromLocalWallet({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      to: recipient.toBase58(),
      coin: "USDC",
      amount: "0.000001",
      wallet,
    });
    expect((await connection.getTokenAccountBalance(ata)).value.amount).toBe("12500001");

    const tx = await connection.getTransaction(first.signature, { commitment: "confirmed" });
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(wallet.publicKey.toBase58());
  });

  it("pays SOL", async () => {
    const wallet = await loadOrCreateWallet(join(dir, "sol-wallet.json"));
    const recipient = Keypair.generate().publicKey;
    const result = await payFromLocalWallet({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      to: recipient.toBase58(),
      coin: "SOL",
      amount: "0.25",
      wallet,
    });
    expect(result.tokenAccount).toBeNull();
    expect(await new Connection(net.rpcUrl, "confirmed").getBalance(recipient)).toBe(250_000_000);
  });
});
