// The landing poller against the local network: transactions waiting together are asked about
// in one status call; those not seen yet are checked for whether they can still land, then asked
// about again; an unseen one still able to land is sent again; one that can no longer land is
// dead; a failed one is dead with the chain's error.
import { keepAliveFetch } from "@gateway/chain-kit";
import { createLogger } from "@gateway/logging";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { waitFor } from "@gateway/testkit";
import { Connection, Keypair, SystemProgram, Transaction } from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLandingPoller, type Fate, type SentTransaction } from "./landing-poller.js";

let net: SolanaLocalnet;
const payer = Keypair.generate();
/** Every JSON-RPC method the poller's connection called, in order, with its first parameter. */
const calls: { method: string; first: unknown }[] = [];
let connection: Connection;
const log = createLogger({ name: "landing-poller-test", level: "silent" });

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 10, finalitySlots: 3 });
  connection = new Connection(net.rpcUrl, {
    commitment: "confirmed",
    fetch: (input, init) => {
      const { method, params } = JSON.parse(String(init?.body)) as { method: string; params: unknown[] };
      calls.push({ method, first: params[0] });
      return keepAliveFetch(input, init);
    },
  });
  net.fund(payer.publicKey.toBase58(), "SOL", "1");
});
afterAll(async () => {
  await net?.close();
});

function sent(blockhash: string, lamports: number): SentTransaction {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }),
  );
  tx.sign(payer);
  return {
    signature: bs58.encode(tx.signature!),
    message: tx.serializeMessage(),
    wire: tx.serialize({ verifySignatures: false }),
    nonceAccount: null,
  };
}

/** Asks until the fate is no longer pending. */
async function settled(poller: ReturnType<typeof createLandingPoller>, transaction: SentTransaction) {
  return waitFor(
    async () => {
      const fate: Fate = await poller.fateOf(transaction);
      return fate.state !== "pending" && fate;
    },
    { what: "a settled fate" },
  );
}

describe("the landing poller", () => {
  it("asks about transactions waiting together in one status call", async () => {
    const poller = createLandingPoller({ connection, log, pollMs: 50 });
    const { blockhash } = await connection.getLatestBlockhash();
    const transactions = [sent(blockhash, 1_000_000), sent(blockhash, 2_000_000), sent(blockhash, 3_000_000)];
    for (const transaction of transactions) await connection.sendRawTransaction(transaction.wire);
    await waitFor(
      async () => {
        const { value } = await connection.getSignatureStatuses(transactions.map((t) => t.signature));
        return value.every((status) => status?.confirmationStatus === "finalized");
      },
      { what: "the three finalized" },
    );

    calls.length = 0;
    const fates = await Promise.all(transactions.map((transaction) => poller.fateOf(transaction)));
    expect(fates).toEqual(transactions.map((t) => ({ state: "final", txid: t.signature })));
    // All three seen: one call, no look at their blockhash.
    expect(calls).toEqual([{ method: "getSignatureStatuses", first: transactions.map((t) => t.signature) }]);
  });

  it("checks only the unseen one, before asking again, and sends it again until it is final", async () => {
    const poller = createLandingPoller({ connection, log, pollMs: 20 });
    const { blockhash } = await connection.getLatestBlockhash();
    const unsent = sent(blockhash, 4_000_000);
    const seen = sent(blockhash, 5_000_000);
    await connection.sendRawTransaction(seen.wire);
    await waitFor(async () => (await connection.getSignatureStatuses([seen.signature])).value[0] !== null, {
      what: "the other one seen",
    });
    calls.length = 0;
    await Promise.all([poller.fateOf(unsent), poller.fateOf(seen)]);
    // Whether it can still land is read before it is asked about again, and only for the unseen one.
    expect(calls).toEqual([
      { method: "getSignatureStatuses", first: [unsent.signature, seen.signature] },
      { method: "isBlockhashValid", first: blockhash },
      { method: "getSignatureStatuses", first: [unsent.signature] },
      { method: "sendTransaction", first: expect.any(String) },
    ]);
    expect(await settled(poller, unsent)).toEqual({ state: "final", txid: unsent.signature });
    expect(calls.filter((call) => call.method === "sendTransaction")).toHaveLength(1);
  });

  it("calls dead one that can no longer land, and one that failed on chain", async () => {
    const poller = createLandingPoller({ connection, log, pollMs: 20 });
    const expired = sent(bs58.encode(Keypair.generate().publicKey.toBytes()), 1);
    const { blockhash } = await connection.getLatestBlockhash();
    const failing = sent(blockhash, 10_000_000_000);
    await connection.sendRawTransaction(failing.wire, { skipPreflight: true });
    const [expiredFate, failingFate] = await Promise.all([
      settled(poller, expired),
      settled(poller, failing),
    ]);
    expect(expiredFate).toEqual({ state: "dead", why: "its blockhash expired" });
    expect(failingFate).toMatchObject({ state: "dead", why: expect.stringMatching(/^failed on chain: /) });
  });
});
