// The Sui client for calls that answer once (kept-alive node:http instead of Node's fetch) against
// the local network's gRPC-Web: answers decoded, an error status surfaced as the SDK surfaces it.
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiUnaryClient } from "./client.js";

let sui: SuiLocalnet;

beforeAll(async () => {
  sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 });
  sui.produceCheckpoint();
});
afterAll(async () => {
  await sui?.close();
});

describe("suiUnaryClient", () => {
  it("reads the chain and a funded balance through the local network's gRPC-Web", async () => {
    const client = suiUnaryClient("localnet", sui.url);
    const owner = `0x${"ab".repeat(32)}`;
    await sui.fund(owner, "USDC", 2_500_000n);
    const { balance } = await client.getBalance({ owner, coinType: sui.coinType("USDC") });
    expect(balance.balance).toBe("2500000");
    const { response } = await client.ledgerService.getServiceInfo({});
    expect(response.chainId).toBe(sui.info().chainId);
  });

  it("surfaces the server's answer that an object does not exist", async () => {
    const client = suiUnaryClient("localnet", sui.url);
    await expect(client.getObject({ objectId: `0x${"cd".repeat(32)}` })).rejects.toThrow(/not found/);
  });
});
