import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { describe, expect, it } from "vitest";
import { createSuiLocalnet } from "./localnet.js";

describe("checkpoints", () => {
  it("seal exactly the transactions executed since the previous one, chained by digest", async () => {
    const net = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 });
    try {
      const client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
      const before = net.produceCheckpoint();
      const a = await net.fund(new Ed25519Keypair().toSuiAddress(), "USDC", 1n);
      const b = await net.fund(new Ed25519Keypair().toSuiAddress(), "USDT", 2n);
      const pending = await client.getTransaction({ digest: a.digest });
      expect(pending.Transaction?.checkpoint).toBeNull();

      const sealed = net.produceCheckpoint();
      const empty = net.produceCheckpoint();
      const read = async (sequenceNumber: bigint) =>
        (
          await client.ledgerService.getCheckpoint({
            checkpointId: { oneofKind: "sequenceNumber", sequenceNumber },
            readMask: {
              paths: [
                "digest",
                "summary.previous_digest",
                "transactions.digest",
                "transactions.transaction_index",
              ],
            },
          })
        ).response.checkpoint!;
      const withTxs = await read(sealed.sequenceNumber);
      expect(withTxs.transactions.map((tx) => tx.digest)).toEqual([a.digest, b.digest]);
      expect(withTxs.transactions.map((tx) => tx.transactionIndex)).toEqual([0n, 1n]);
      expect(withTxs.summary?.previousDigest).toBe(before.digest);
      const next = await read(empty.sequenceNumber);
      expect(next.transactions).toEqual([]);
      expect(next.summary?.previousDigest).toBe(withTxs.digest);
      expect((await client.getTransaction({ digest: b.digest })).Transaction?.checkpoint).toBe(
        sealed.sequenceNumber.toString(),
      );
    } finally {
      await net.close();
    }
  });

  it("tick at the configured interval and close with a subscription still open", async () => {
    const net = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 });
    const client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
    const call = client.subscriptionService.subscribeCheckpoints({});
    const cursors: bigint[] = [];
    const started = Date.now();
    for await (const frame of call.responses) {
      cursors.push(frame.cursor!);
      if (cursors.length === 5) break;
    }
    const elapsed = Date.now() - started;
    expect(cursors.slice(1)).toEqual(cursors.slice(0, -1).map((cursor) => cursor + 1n));
    // Five ticks of 100 ms; generous bounds for a loaded machine.
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3000);
    const open = client.subscriptionService.subscribeCheckpoints({});
    await open.headers;
    await net.close();
    await expect(open.status).rejects.toBeDefined();
  });
});
