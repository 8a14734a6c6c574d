import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSuiCustomerPool } from "./customer-pool.js";
import { createSuiLocalnet, type SuiLocalnet } from "./localnet.js";

let net: SuiLocalnet;

beforeAll(async () => {
  net = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 });
});
afterAll(async () => {
  await net.close();
});

describe("a pool of funded customers", () => {
  it("pays from prepared wallets, one payment each, and refuses once none is left", async () => {
    const pool = await createSuiCustomerPool({ url: net.url, fundEach: "10" });
    await pool.prepare(3);
    expect(pool.ready).toBe(3);
    const to = new Ed25519Keypair().toSuiAddress();
    const digests = await Promise.all([pool.pay(to, 1_000_000n), pool.pay(to, 2_000_000n), pool.pay(to, 3n)]);
    expect(new Set(digests).size).toBe(3);
    // Sealed in a checkpoint of this run, at most a few intervals after the payment was sent.
    const sealed = await pool.sealedAt(digests[0]!);
    expect(Math.abs(sealed - Date.now())).toBeLessThan(5_000);
    expect(pool.ready).toBe(0);
    await expect(pool.pay(to, 1n)).rejects.toThrow(/no prepared Sui wallet/);

    const client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
    const { balance } = await client.getBalance({ owner: to, coinType: net.coinType("USDC") });
    expect(balance.balance).toBe("3000003");
  });
});
