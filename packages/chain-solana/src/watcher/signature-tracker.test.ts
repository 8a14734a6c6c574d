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
