import { randomUUID } from "node:crypto";
import type { TransactionOutcome } from "@gateway/contracts";
import { newId } from "@gateway/db";
import { checkLedger, merchantBalances } from "@gateway/ledger";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { afterRestore, parseSignerRecord, type SignedIntentView, type SignerRecordLine } from "./index.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const subjects = {
  event: (type: string) => `t.evt.${type}`,
  payoutCommand: (chain: string) => `t.cmd.payout.${chain}`,
};
const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const coinOf = (chain: string, asset: string) =>
  chain === "solana" && asset === USDC_MINT ? ("USDC" as const) : undefined;

function signedPayout(fields: Record<string, string>): SignerRecordLine {
  return {
    type: "signed",
    seq: 10,
    at: new Date().toISOString(),
    intent: {
      intentId: `payout:${fields.reference}`,
      kind: "payout",
      chain: "solana",
      mode: "live",
      asset: USDC_MINT,
      amount: "4700000",
      destination: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
      ...fields,
    },
    transaction: "AA==",
  };
}

describe("after a restore of the database", () => {
  it("puts back payouts the signer signed, moves the index sequences, lists unknown addresses, and sets a new epoch", async () => {
    const merchantId = newId("mer");
    await db.sql`insert into merchants (id, email, business_name, password_hash)
      values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
    const lost = newId("po");
    const scheduled = newId("po");
    const record = parseSignerRecord(
      [
        signedPayout({ reference: lost, merchantId, approvalKeyId: "api" }),
        signedPayout({ reference: scheduled, merchantId }),
        signedPayout({ reference: newId("po"), merchantId: "mer_not_in_this_database" }),
        signedPayout({ reference: newId("po"), merchantId, asset: "NotAMintThisConfigurationKnows" }),
        {
          type: "signed",
          seq: 11,
          at: new Date().toISOString(),
          intent: {
            intentId: "sweep:pay_1",
            kind: "sweep",
            chain: "solana",
            mode: "live",
            asset: "SOL",
            amount: "5",
          },
        },
        {
          type: "address",
          seq: 12,
          chain: "solana",
          mode: "live",
          index: 41,
          address: "AddrNobodyExpects41",
        },
        { type: "address", seq: 13, chain: "sui", mode: "test", index: 7, address: "0xnobody7" },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );

    // Published before the restore: a command, an event of this week and one of 9 days ago.
    await db.sql`insert into outbox (id, subject, payload) values ('cmd_sent', 't.cmd.x', '{}')`;
    await db.sql`insert into events (id, merchant_id, mode, type, data, created_at) values
      ('evt_old', ${merchantId}, 'live', 'payment.created', '{}', now() - interval '9 days'),
      ('evt_recent', ${merchantId}, 'live', 'payment.created', '{}', now() - interval '1 day')`;
    await db.sql`update relay_cursors c set (xid, seq) = (select max(xid), max(seq) from outbox) where relay = 'outbox'`;
    await db.sql`update relay_cursors c set (xid, seq) = (select max(xid), max(seq) from events) where relay = 'events'`;
    // A dump restored into a new cluster: the rows carry ids its counter has not reached yet.
    const ahead = db.sql`(pg_current_xact_id()::text::bigint + 1000000)::text::xid8`;
    await db.sql`update outbox set xid = ${ahead} where id = 'cmd_sent'`;
    await db.sql`update events set xid = ${ahead} where id in ('evt_old', 'evt_recent')`;
    await db.sql`update relay_cursors set xid = ${ahead}`;

    const report = await afterRestore(db.sql, { subjects, record, coinOf, epoch: "restore-test-1" });

    const events = await db.sql<{ id: string }[]>`select id from events_pending where id like 'evt_%'`;
    expect(events.map((r) => r.id)).toEqual(["evt_recent"]);
    const sent = await db.sql<{ id: string }[]>`select id from outbox_pending where id = 'cmd_sent'`;
    expect(sent.map((r) => r.id)).toEqual(["cmd_sent"]);
    expect(report.republished).toBe(2);
    // What is written after the restore follows, and nothing waits on an id from the future.
    await db.sql`insert into events (id, merchant_id, mode, type, data) values
      ('evt_after', ${merchantId}, 'live', 'payment.created', '{}')`;
    const [relayable] = await db.sql<{ ids: string[]; settled: boolean }[]>`
      select array_agg(id order by xid, seq) as ids,
        bool_and(xid < pg_snapshot_xmin(pg_current_snapshot())) as settled
      from events_pending where id like 'evt_%'`;
    expect(relayable).toEqual({ ids: ["evt_recent", "evt_after"], settled: true });

    expect(report.epoch).toBe("restore-test-1");
    const [epoch] = await db.sql<{ epoch: string }[]>`select epoch from bus_epoch`;
    expect(epoch!.epoch).toBe("restore-test-1");
    // The manual payout: what was sent plus the fixed network fee; the scheduled one: no fee.
    expect(report.payoutsPutBack.map((p) => [p.id, p.amount])).toEqual([
      [lost, 5_000_000n],
      [scheduled, 4_700_000n],
    ]);
    const rows = await db.sql<
      { id: string; status: string; kind: string; network_fee: bigint; approval: unknown }[]
    >`
      select id, status, kind, network_fee, approval from payouts where id in ${db.sql([lost, scheduled])} order by kind`;
    expect(rows.map((r) => [r.id, r.status, r.kind, r.network_fee, r.approval])).toEqual([
      [lost, "pending", "manual", 300_000n, null],
      [scheduled, "pending", "scheduled", 0n, null],
    ]);
    // Reserved although the restored balance is empty: the money already left.
    expect(await merchantBalances(db.sql, merchantId, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: -9_700_000n, pending: 9_700_000n },
    ]);
    expect((await checkLedger(db.sql)).total).toBe(0n);
    // Settlement is asked to execute them again, and will get the bound transactions back.
    const commands = await db.sql<
      { id: string }[]
    >`select id from outbox where id like 'payout:%' order by id`;
    expect(commands.map((c) => c.id).sort()).toEqual([`payout:${lost}`, `payout:${scheduled}`].sort());
    expect(report.payoutsNotPutBack.map((p) => p.reason)).toEqual([
      "merchant mer_not_in_this_database is not in the database",
      `solana live NotAMintThisConfigurationKnows is not a payout coin this configuration knows`,
    ]);
    expect(report.sequencesMoved).toEqual([
      { sequence: "deposit_index_solana_live", to: 41 },
      { sequence: "deposit_index_sui_test", to: 7 },
    ]);
    const [next] = await db.sql<{ n: bigint }[]>`select nextval('deposit_index_solana_live') as n`;
    expect(next!.n).toBe(42n);
    expect(report.addressesNoPaymentExpects.map((a) => a.address)).toEqual([
      "AddrNobodyExpects41",
      "0xnobody7",
    ]);

    // Run again (an operator repeating the runbook): nothing is put back twice.
    const again = await afterRestore(db.sql, { subjects, record, coinOf, epoch: "restore-test-2" });
    expect(again.payoutsPutBack).toEqual([]);
    expect((await db.sql`select 1 from payouts where merchant_id = ${merchantId}`).length).toBe(2);
  });

  it("books in suspense the sweeps and refunds final on chain for payments the database does not have", async () => {
    const merchantId = newId("mer");
    await db.sql`insert into merchants (id, email, business_name, password_hash)
      values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
    // A payment the restore kept, with its deposit wallet at index 500: its own flow books its sweep.
    const kept = randomUUID();
    await db.sql`insert into payments (id, merchant_id, mode, amount, currency, fee, status, state, expires_at)
      values (${kept}, ${merchantId}, 'live', 1000, 'USD', 10, 'pending', '{}'::jsonb, now() + interval '1 hour')`;
    await db.sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
      values (${newId("dw")}, ${kept}, 'live', 'solana', 'USDC', 500, 'KeptDepositAddress500', 10000000)`;
    // A payment the restore kept without the wallet it was given after the backup.
    const walletless = randomUUID();
    await db.sql`insert into payments (id, merchant_id, mode, amount, currency, fee, status, state, expires_at)
      values (${walletless}, ${merchantId}, 'live', 1000, 'USD', 10, 'pending', '{}'::jsonb, now() + interval '1 hour')`;
    const gone = randomUUID();
    let seq = 100;
    const signed = (intent: Record<string, unknown>, txid?: string): SignerRecordLine => ({
      type: "signed",
      seq: seq++,
      at: new Date().toISOString(),
      intent: { chain: "solana", mode: "live", asset: USDC_MINT, ...intent } as SignedIntentView,
      ...(txid && { txid, transaction: Buffer.from(txid).toString("base64") }),
    });
    const record = [
      // Two attempts of the gone payment's sweep: the first expired unlanded, the second is final.
      signed(
        { intentId: `sweep:${gone}#1`, kind: "sweep", amount: "7000000", depositIndex: 501 },
        "tx-never",
      ),
      signed(
        { intentId: `sweep:${gone}#2`, kind: "sweep", amount: "7000000", depositIndex: 501 },
        "tx-sweep",
      ),
      // Its overpayment refunded from the vault, final on chain.
      signed(
        {
          intentId: `refund:${gone}:1`,
          kind: "refund",
          amount: "2000000",
          destination: "Cust",
          reference: gone,
        },
        "tx-refund",
      ),
      // A refund that failed on chain moved nothing.
      signed(
        { intentId: `refund:${gone}:2`, kind: "refund", amount: "1", destination: "Cust", reference: gone },
        "tx-failed",
      ),
      // Still able to land: not booked, and said so.
      signed(
        { intentId: `sweep:${randomUUID()}`, kind: "sweep", amount: "5", depositIndex: 502 },
        "tx-pending",
      ),
      // Signed before the signer recorded transaction ids.
      signed({ intentId: `sweep:${randomUUID()}`, kind: "sweep", amount: "5", depositIndex: 503 }),
      // The walletless payment's underpayment: collected into the vault, then refunded.
      signed(
        { intentId: `collect:${walletless}`, kind: "sweep", amount: "3000000", depositIndex: 505 },
        "tx-w-in",
      ),
      signed(
        {
          intentId: `refund:${walletless}`,
          kind: "refund",
          amount: "3000000",
          destination: "C",
          reference: walletless,
        },
        "tx-w-out",
      ),
      // The kept payment's sweep and refund, and a test-mode sweep: never asked about.
      signed({ intentId: `sweep:${kept}`, kind: "sweep", amount: "10000000", depositIndex: 500 }, "tx-kept"),
      signed(
        { intentId: `refund:${kept}`, kind: "refund", amount: "1", destination: "C", reference: kept },
        "tx-kept-refund",
      ),
      signed(
        { intentId: "sweep:test", kind: "sweep", mode: "test", amount: "5", depositIndex: 504 },
        "tx-test",
      ),
    ];
    const outcomes: Record<string, TransactionOutcome> = {
      "tx-never": "never",
      "tx-sweep": "succeeded",
      "tx-refund": "succeeded",
      "tx-failed": "failed",
      "tx-pending": "pending",
      "tx-w-in": "succeeded",
      "tx-w-out": "succeeded",
    };
    const asked: string[] = [];
    const outcomeOf = {
      solana: async (txid: string, transaction: Uint8Array) => {
        asked.push(txid);
        expect(Buffer.from(transaction).toString()).toBe(txid);
        return outcomes[txid]!;
      },
    };
    const vault = async () =>
      (
        await db.sql<{ balance: bigint }[]>`select balance from ledger_balances
          where kind = 'platform_vault' and mode = 'live' and chain = 'solana' and coin = 'USDC'`
      )[0]?.balance ?? 0n;
    const vaultBefore = await vault();

    const report = await afterRestore(db.sql, { subjects, record, coinOf, outcomeOf, epoch: "restore-s-1" });
    expect(asked.sort()).toEqual([
      "tx-failed",
      "tx-never",
      "tx-pending",
      "tx-refund",
      "tx-sweep",
      "tx-w-in",
      "tx-w-out",
    ]);
    expect(report.suspense.map((s) => [s.kind, s.intentId, s.amount, s.txid])).toEqual([
      ["sweep", `sweep:${gone}#2`, 7_000_000n, "tx-sweep"],
      ["refund", `refund:${gone}:1`, 2_000_000n, "tx-refund"],
      ["sweep", `collect:${walletless}`, 3_000_000n, "tx-w-in"],
      ["refund", `refund:${walletless}`, 3_000_000n, "tx-w-out"],
    ]);
    expect(report.suspenseNotBooked.map((s) => s.reason)).toEqual([
      "solana tx-pending is not final yet and can still be: run again with --chains-only later",
      "the signer's record has no transaction id for it (signed before they were recorded)",
    ]);
    // The vault's account moves as the vault did on chain; the suspense account holds the difference.
    expect((await vault()) - vaultBefore).toBe(5_000_000n);
    const [suspense] = await db.sql<{ balance: bigint }[]>`select balance from ledger_balances
      where kind = 'platform_suspense' and mode = 'live' and chain = 'solana' and coin = 'USDC'`;
    expect(suspense!.balance).toBe(5_000_000n);
    expect((await checkLedger(db.sql)).total).toBe(0n);

    // Later, the pending one landed: the chain step alone books it, and nothing twice.
    outcomes["tx-pending"] = "succeeded";
    const later = await afterRestore(db.sql, { subjects, record, coinOf, outcomeOf, chainsOnly: true });
    expect(later.suspense.map((s) => s.txid)).toEqual(["tx-pending"]);
    expect((await vault()) - vaultBefore).toBe(5_000_005n);
    const [epoch] = await db.sql<{ epoch: string }[]>`select epoch from bus_epoch`;
    expect(epoch!.epoch).toBe("restore-s-1");
  });

  it("refuses a record line it cannot read", () => {
    expect(() => parseSignerRecord('{"type":"mystery"}')).toThrow(/neither an address nor a signing/);
  });
});
