// The landing poller against the local network with checkpoints made by hand: one batch read a
// tick for every transaction still waiting, none once nothing waits, and a deadline per wait.
import { createLogger } from "@gateway/logging";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiUnaryClient } from "./client.js";
import { createLandingPoller } from "./landing-poller.js";

const log = createLogger({ name: "landing-poller-test", level: "silent" });
let sui: SuiLocalnet;

beforeAll(async () => {
  sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 0 });
});
afterAll(async () => {
  await sui?.close();
});

/** A client whose batch reads and single reads are counted (digests per batch call). */
function countingClient() {
  const client = suiUnaryClient("localnet", sui.url);
  const batches: number[] = [];
  let singles = 0;
  const batch = client.ledgerService.batchGetTransactions.bind(client.ledgerService);
  client.ledgerService.batchGetTransactions = (input, options) => {
    batches.push(input.digests.length);
    return batch(input, options);
  };
  const single = client.ledgerService.getTransaction.bind(client.ledgerService);
  client.ledgerService.getTransaction = (input, options) => {
    singles++;
    return single(input, options);
  };
  return { client, batches, singles: () => singles };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("landing poller", () => {
  it("asks for every waiting transaction in one call a tick until a checkpoint holds them, then stops", async () => {
    const { client, batches, singles } = countingClient();
    const watch = createLandingPoller({ client, log, intervalMs: 20 });
    const grants = await Promise.all(
      [1, 2, 3].map((i) => sui.fund(`0x${String(i).repeat(64)}`, "USDC", 1_000_000n)),
    );
    const settled: string[] = [];
    const waits = grants.map((grant) =>
      watch.wait(grant.digest, 10_000).then((tx) => {
        settled.push(tx.digest);
        return tx;
      }),
    );
    await sleep(150);
    expect(settled).toEqual([]);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batches.every((size) => size === 3)).toBe(true);

    const checkpoint = sui.produceCheckpoint();
    const finals = await Promise.all(waits);
    expect(finals.map((tx) => tx.digest)).toEqual(grants.map((grant) => grant.digest));
    for (const tx of finals) {
      expect(tx.checkpoint).toBe(String(checkpoint.sequenceNumber));
      expect(tx.status).toEqual({ success: true });
    }
    const calls = batches.length;
    await sleep(100);
    expect(batches.length).toBe(calls);
    expect(singles()).toBe(0);
  });

  it("gives up on a transaction the chain does not know at its deadline, and only on that one", async () => {
    const { client } = countingClient();
    const watch = createLandingPoller({ client, log, intervalMs: 20 });
    const grant = await sui.fund(`0x${"4".repeat(64)}`, "USDC", 1_000_000n);
    const unknown = "11111111111111111111111111111111111111111111";
    const known = watch.wait(grant.digest, 10_000);
    await expect(watch.wait(unknown, 100)).rejects.toThrow(/not in a checkpoint yet/);
    sui.produceCheckpoint();
    expect((await known).digest).toBe(grant.digest);
  });
});

describe("landing poller without its full node", () => {
  it("warns once per interval while every read fails, counting the failures, and still times out", async () => {
    const lines: { msg: string; failedReads?: number }[] = [];
    const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
    const quiet = createLogger({ name: "landing-poller-test", level: "warn", destination });
    // Nothing listens on port 9: every batch read fails at once.
    const watch = createLandingPoller({
      client: suiUnaryClient("localnet", "http://127.0.0.1:9"),
      log: quiet,
      intervalMs: 20,
      warnEveryMs: 10_000,
    });
    await expect(watch.wait("11111111111111111111111111111111111111111111", 300)).rejects.toThrow(
      /not in a checkpoint yet/,
    );
    const warnings = lines.filter((line) => /finality reads failing/.test(line.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.failedReads).toBe(1);
  });
});
