import { createLogger } from "@gateway/logging";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { Connection, Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignatureTracker } from "./signature-tracker.js";

let net: SolanaLocalnet;
let connection: Connection;
const log = createLogger({ name: "tracker-test", level: "silent" });

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 20, finalitySlots: 2 });
  connection = new Connection(net.rpcUrl, { commitment: "confirmed" });
});
afterAll(async () => {
  await net.close();
});

describe("the signature tracker", () => {
  it("reports nothing while crediting is stopped, and the held transfer's reports once it resumes", async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const reports: string[] = [];
    let crediting = false;
    const tracker = createSignatureTracker({
      connection,
      log,
      lookup: {
        watched: (a) => (a === address ? { address, coin: "USDC" } : undefined),
        coinOfMint: (mint) => (mint === net.mints.USDC ? "USDC" : undefined),
      },
      publish: async (deposit, _signature, stage) => {
        reports.push(`${stage}:${deposit.amount}`);
      },
      pollMs: 20,
      giveUpMs: 60_000,
      crediting: () => crediting,
    });
    tracker.start();
    try {
      const signature = net.fund(address, "USDC", "2.5");
      tracker.hint(signature);
      await net.waitForFinalizedSlot(net.slot() + 3);
      await new Promise((r) => setTimeout(r, 300));
      expect(reports).toEqual([]);
      expect(tracker.tracked()).toBe(1);
      crediting = true;
      await expect
        .poll(() => reports, { timeout: 5_000, interval: 20 })
        .toEqual(["seen:2500000", "final:2500000"]);
    } finally {
      await tracker.stop();
    }
  });
});

describe("the signature tracker's reads", () => {
  /** The connection's two read calls, counted; `failBatches` makes the batched one fail. */
  function countedConnection(failBatches: boolean) {
    const counted = new Connection(net.rpcUrl, { commitment: "confirmed" });
    const calls = { single: 0, batched: [] as number[] };
    const single = counted.getTransaction.bind(counted);
    const batched = counted.getTransactions.bind(counted);
    counted.getTransaction = ((...args: Parameters<typeof single>) => {
      calls.single += 1;
      return single(...args);
    }) as typeof counted.getTransaction;
    counted.getTransactions = ((...args: Parameters<typeof batched>) => {
      calls.batched.push(args[0].length);
      return failBatches ? Promise.reject(new Error("batch refused")) : batched(...args);
    }) as typeof counted.getTransactions;
    return { counted, calls };
  }

  async function trackThree(tracked: Connection) {
    const addresses = [0, 1, 2].map(() => Keypair.generate().publicKey.toBase58());
    const reports: string[] = [];
    let crediting = false;
    const tracker = createSignatureTracker({
      connection: tracked,
      log,
      lookup: {
        watched: (a) => (addresses.includes(a) ? { address: a, coin: "USDC" } : undefined),
        coinOfMint: (mint) => (mint === net.mints.USDC ? "USDC" : undefined),
      },
      publish: async (deposit, _signature, stage) => {
        reports.push(`${stage}:${deposit.address}:${deposit.amount}`);
      },
      pollMs: 20,
      giveUpMs: 60_000,
      crediting: () => crediting,
    });
    tracker.start();
    try {
      // All three final before the first poll that may read: one poll finds them together.
      for (const [n, address] of addresses.entries()) tracker.hint(net.fund(address, "USDC", `${n + 1}`));
      await net.waitForFinalizedSlot(net.slot() + 3);
      crediting = true;
      const expected = addresses.flatMap((a, n) => [
        `seen:${a}:${(n + 1) * 1_000_000}`,
        `final:${a}:${(n + 1) * 1_000_000}`,
      ]);
      await expect.poll(() => [...reports].sort(), { timeout: 5_000, interval: 20 }).toEqual(expected.sort());
      expect(tracker.tracked()).toBe(0);
      return reports;
    } finally {
      await tracker.stop();
    }
  }

  it("reads the transactions one poll finds in one batched request", async () => {
    const { counted, calls } = countedConnection(false);
    const reports = await trackThree(counted);
    expect(calls).toEqual({ single: 0, batched: [3] });
    // Each transfer's seen report still precedes its final one.
    for (const report of reports.filter((r) => r.startsWith("final:")))
      expect(reports.indexOf(report.replace("final:", "seen:"))).toBeLessThan(reports.indexOf(report));
  });

  it("reads each transaction alone when the batched request fails", async () => {
    const { counted, calls } = countedConnection(true);
    await trackThree(counted);
    expect(calls).toEqual({ single: 3, batched: [3] });
  });
});
