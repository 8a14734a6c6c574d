// Live payments on the local Sui network, end to end: a customer's wallet pays the deposit
// address, the checkpoint watcher reports it, settlement sweeps to the vault (sponsored by the
// gas wallet) or refunds through the signer, and the chain ends up agreeing with the payments.
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  balance,
  createLivePayment,
  customer,
  eventsOf,
  pay,
  type SuiHarness,
  startSuiHarness,
  statusOf,
} from "./sui-harness.js";

let h: SuiHarness;
let vaultStart: bigint;
let gasStart: bigint;
const completed: string[] = [];
const deposits: string[] = [];
const FEE = 1_000_000n;

beforeAll(async () => {
  h = await startSuiHarness();
  vaultStart = await balance(h, h.wallets.vault, "USDC");
  gasStart = await balance(h, h.wallets.gas, "SUI");
});
afterAll(async () => {
  await h?.close();
});

async function openPayment(options: Parameters<typeof createLivePayment>[1] = {}) {
  const payment = await createLivePayment(h, options);
  deposits.push(payment.address);
  return payment;
}

const waitStatus = (id: string, status: string, timeoutMs = 20_000) =>
  waitFor(async () => (await statusOf(h, id)) === status, { what: `payment ${status}`, timeoutMs });

const stateOf = async (id: string) =>
  (await h.db.sql<{ state: any }[]>`select state from payments where id = ${id}`)[0]!.state;

describe("live payments on Sui", () => {
  it("exact payment: confirming, confirmed, completed; swept to the vault, the deposit paid no gas", async () => {
    const payer = await customer(h, { USDC: 100_000_000n });
    const payment = await openPayment();
    const digest = await pay(h, payer, payment.address, "USDC", payment.amountDue);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    expect(await eventsOf(h, payment.id)).toEqual([
      "payment.confirming",
      "payment.confirmed",
      "payment.completed",
    ]);
    const state = await stateOf(payment.id);
    expect(state.amountReceived).toBe("12500000");
    expect(state.transfers).toEqual([
      expect.objectContaining({
        transferId: expect.stringMatching(new RegExp(`^sui:${digest}:\\d+$`)),
        sender: payer.toSuiAddress(),
        status: "counted",
      }),
    ]);
    expect(state.credit).toMatchObject({ gross: "12500000" });
    expect(await balance(h, payment.address, "USDC")).toBe(0n);
    expect(await balance(h, payment.address, "SUI")).toBe(0n);
  });

  it("two partial transfers add up", async () => {
    const payer = await customer(h, { USDC: 100_000_000n });
    const payment = await openPayment();
    await pay(h, payer, payment.address, "USDC", 5_000_000n);
    await waitStatus(payment.id, "confirming");
    await pay(h, payer, payment.address, "USDC", 7_500_000n);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    expect((await stateOf(payment.id)).amountReceived).toBe("12500000");
    expect(await eventsOf(h, payment.id)).toEqual([
      "payment.confirming",
      "payment.confirmed",
      "payment.completed",
    ]);
  });

  it("underpaid: at expiry the whole amount goes back to the sender", async () => {
    const payer = await customer(h, { USDC: 10_000_000n });
    const payment = await openPayment({ expiresInMs: 2500 });
    await pay(h, payer, payment.address, "USDC", 4_000_000n);
    await waitStatus(payment.id, "refunded");
    expect(await eventsOf(h, payment.id)).toEqual([
      "payment.confirming",
      "payment.underpaid",
      "payment.refunded",
    ]);
    expect(await balance(h, payer.toSuiAddress(), "USDC")).toBe(10_000_000n);
    expect(await balance(h, payment.address, "USDC")).toBe(0n);
  });

  it("overpaid: completes and the surplus goes back", async () => {
    const payer = await customer(h, { USDC: 20_000_000n });
    const payment = await openPayment();
    await pay(h, payer, payment.address, "USDC", 15_000_000n);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    await waitFor(async () => (await balance(h, payer.toSuiAddress(), "USDC")) === 7_500_000n, {
      what: "surplus refunded",
    });
    const state = await stateOf(payment.id);
    expect(state.overpaidAmount).toBe("2500000");
    expect(state.refunds[0]).toMatchObject({ kind: "overpayment", from: "vault" });
  });

  it("late: a transfer after expiry is returned in full", async () => {
    const payer = await customer(h, { USDC: 20_000_000n });
    const payment = await openPayment({ expiresInMs: 800 });
    await waitStatus(payment.id, "expired");
    await pay(h, payer, payment.address, "USDC", payment.amountDue);
    await waitStatus(payment.id, "refunded");
    expect(await balance(h, payer.toSuiAddress(), "USDC")).toBe(20_000_000n);
    expect(await eventsOf(h, payment.id)).toEqual(["payment.expired", "payment.refunded"]);
  });

  it("ignores a transfer of another coin type", async () => {
    const payer = await customer(h, { USDT: 20_000_000n });
    const payment = await openPayment();
    const before = h.watcher.status().checkpointsProcessed;
    await pay(h, payer, payment.address, "USDT", payment.amountDue);
    // Several checkpoints later the USDT transfer has been read, and changed nothing.
    await waitFor(() => h.watcher.status().checkpointsProcessed >= before + 6, { what: "checkpoints read" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await statusOf(h, payment.id)).toBe("pending");
    expect(await eventsOf(h, payment.id)).toEqual([]);
    expect(await balance(h, payment.address, "USDT")).toBe(payment.amountDue);
  });

  it("a watcher restart in the middle of a checkpoint stream leaves no gap and no double count", async () => {
    const payer = await customer(h, { USDC: 200_000_000n });
    const payments = await Promise.all([0, 1, 2, 3].map(() => openPayment()));
    // Two halves each: the first half before the restart, the second while the watcher is down.
    for (const payment of payments) await pay(h, payer, payment.address, "USDC", 6_000_000n);
    await h.restartWatcher(async () => {
      for (const payment of payments) await pay(h, payer, payment.address, "USDC", 6_500_000n);
    });
    for (const payment of payments) {
      await waitStatus(payment.id, "completed");
      completed.push(payment.id);
      const state = await stateOf(payment.id);
      expect(state.amountReceived).toBe("12500000");
      expect(state.transfers.map((t: { status: string }) => t.status)).toEqual(["counted", "counted"]);
      expect(state.refunds).toEqual([]);
    }
  });

  it("on-chain balances equal the payments, and the gas wallet paid every fee", async () => {
    await waitFor(
      async () => {
        const [open] = await h.db.sql<{ n: number }[]>`
          select count(distinct intent_id)::int as n from sui_intent_attempts a
          where not exists (select 1 from sui_intents_done d where d.intent_id = a.intent_id)`;
        return open!.n === 0;
      },
      { what: "every settlement transaction final" },
    );
    const credited = await h.db.sql<{ gross: string }[]>`
      select state->'credit'->>'gross' as gross from payments where id = any(${completed}::uuid[])`;
    const gross = credited.reduce((sum, row) => sum + BigInt(row.gross), 0n);
    expect(gross).toBe(BigInt(completed.length) * 12_500_000n);
    expect((await balance(h, h.wallets.vault, "USDC")) - vaultStart).toBe(gross);
    for (const address of deposits) {
      expect(await balance(h, address, "USDC")).toBe(0n);
      expect(await balance(h, address, "SUI")).toBe(0n);
    }

    const sent = await h.db.sql<{ digest: string }[]>`select digest from sui_intents_done`;
    expect(sent.length).toBeGreaterThanOrEqual(completed.length);
    for (const { digest } of sent) {
      const tx = await h.client.getTransaction({ digest, include: { balanceChanges: true } });
      expect(tx.Transaction?.status.success).toBe(true);
      const suiSpent = tx.Transaction!.balanceChanges!.filter(
        (c) => c.coinType === h.net.coinType("SUI") && BigInt(c.amount) < 0n,
      );
      expect(suiSpent).toEqual([
        { address: h.wallets.gas, coinType: h.net.coinType("SUI"), amount: `-${FEE}` },
      ]);
    }
    expect(gasStart - (await balance(h, h.wallets.gas, "SUI"))).toBe(BigInt(sent.length) * FEE);
  });
});
