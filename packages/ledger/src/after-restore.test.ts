import { newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  afterRestore,
  checkLedger,
  merchantBalances,
  parseSignerRecord,
  type SignerRecordLine,
} from "./index.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const subjects = {
  event: (type: string) => `t.evt.${type}`,
  payoutCommand: (id: string) => `t.cmd.payout.${id}`,
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

    // Two messages published before the restore: one its consumer handled, one it had not.
    await db.sql`insert into outbox (id, subject, payload, published_at) values
      ('evt_handled', 't.evt.x', '{}', now()), ('evt_unhandled', 't.evt.x', '{}', now())`;
    await db.sql`insert into processed_messages (consumer, message_id) values ('notifier', 'evt_handled')`;

    const report = await afterRestore(db.sql, { subjects, record, coinOf, epoch: "restore-test-1" });

    const unpublished = await db.sql<{ id: string }[]>`
      select id from outbox where published_at is null and id like 'evt_%'`;
    expect(unpublished.map((r) => r.id)).toEqual(["evt_unhandled"]);
    expect(report.republished).toBe(1);

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

  it("refuses a record line it cannot read", () => {
    expect(() => parseSignerRecord('{"type":"mystery"}')).toThrow(/neither an address nor a signing/);
  });
});
