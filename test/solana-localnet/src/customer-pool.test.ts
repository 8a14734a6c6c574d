import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSolanaCustomerPool } from "./customer-pool.js";
import { createSolanaLocalnet, type SolanaLocalnet } from "./localnet.js";

let net: SolanaLocalnet;

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 20 });
});
afterAll(async () => {
  await net.close();
});

describe("a pool of funded customers", () => {
  it("pays many recipients at once from few wallets, each transfer landing in full", async () => {
    const pool = await createSolanaCustomerPool({ rpcUrl: net.rpcUrl, wallets: 2, fundEach: "100" });
    try {
      const recipients = Array.from({ length: 6 }, () => Keypair.generate().publicKey);
      const signatures = await Promise.all(
        recipients.map((to, i) => pool.pay(to.toBase58(), 1_000_000n + BigInt(i))),
      );
      expect(new Set(signatures).size).toBe(6);
      const connection = new Connection(net.rpcUrl, "confirmed");
      const mint = new PublicKey(net.mints.USDC);
      for (const [i, to] of recipients.entries()) {
        const balance = await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(mint, to));
        expect(balance.value.amount).toBe(String(1_000_000 + i));
      }
    } finally {
      pool.close();
    }
  });

  it("reports a transfer the network refuses", async () => {
    const pool = await createSolanaCustomerPool({ rpcUrl: net.rpcUrl, wallets: 1, fundEach: "1" });
    try {
      await expect(pool.pay(Keypair.generate().publicKey.toBase58(), 2_000_000n)).rejects.toThrow(
        /sendTransaction/,
      );
    } finally {
      pool.close();
    }
  });
});
