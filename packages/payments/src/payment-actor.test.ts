import { randomUUID } from "node:crypto";
import { busTopology } from "@gateway/bus";
import { newId, type TransactionSql } from "@gateway/db";
import {
  computeFee,
  initialPaymentState,
  type PaymentMessage,
  STATIC_TEST_PRICES,
  toCoinUnits,
} from "@gateway/domain";
import { checkLedger } from "@gateway/ledger";
import { createLogger } from "@gateway/logging";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApplyResult,
  applyPaymentMessage,
  applyPaymentMessages,
  applyPaymentMessageToRow,
  type PaymentActorDeps,
  type ToPayment,
} from "./payment-actor.js";
import { insertPayment, type PaymentRow, stateOf } from "./payment-row.js";

let db: TestDatabase;
let deps: PaymentActorDeps;
const merchantId = newId("mer");

beforeAll(async () => {
  db = await createTestDatabase();
  deps = {
    sql: db.sql,
    topology: busTopology("actor-test"),
    log: createLogger({ name: "actor-test", level: "silent" }),
    publicBaseUrl: "https://pay.example",
  };
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
afterAll(async () => {
  await db.drop();
});

async function newPayment(): Promise<PaymentRow> {
  const amount = 1250n;
  const state = initialPaymentState({
    id: randomUUID(),
    mode: "test",
    currency: "USD",
    amount,
    fee: computeFee(amount, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + 600_000,
  });
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  const [row] = await db.sql<PaymentRow[]>`select * from payments where id = ${state.id}`;
  return row!;
}

const assign = (address: string) =>
  ({
    type: "wallet_assigned",
    chain: "solana",
    coin: "USDC",
    address,
    amountDue: toCoinUnits(1250n, "USD", "USDC"),
    quote: null,
  }) as const;

describe("applyPaymentMessageToRow", () => {
  it("applies a state-only message to the row it was read as, in one update", async () => {
    const row = await newPayment();
    const applied = await applyPaymentMessageToRow(deps, row, assign("addr-1"));
    expect(applied?.decision.rejected).toBeUndefined();
    expect(applied?.row.version).toBe(row.version + 1);
    expect(stateOf(applied!.row).wallet?.address).toBe("addr-1");
  });

  it("decides again on the current row when the row it read has changed meanwhile", async () => {
    const stale = await newPayment();
    await applyPaymentMessage(deps, stale.id, assign("addr-first"));
    // Decided on the stale row this would be a plain assignment; on the current one it replaces
    // the first wallet, and it is applied exactly once.
    const applied = await applyPaymentMessageToRow(deps, stale, assign("addr-second"));
    expect(applied?.decision.rejected).toBeUndefined();
    expect(applied?.row.version).toBe(stale.version + 2);
    expect(stateOf(applied!.row).wallet?.address).toBe("addr-second");
    // The same wallet again, from the stale row: the current row says it is a duplicate.
    const again = await applyPaymentMessageToRow(deps, stale, assign("addr-second"));
    expect(again?.decision.rejected?.code).toBe("duplicate");
    const [row] = await db.sql<PaymentRow[]>`select * from payments where id = ${stale.id}`;
    expect(row?.version).toBe(stale.version + 2);
  });
});

describe("a surplus refund's notice", () => {
  const notices = (paymentId: string) =>
    db.sql<{ id: string; subject: string; payload: Record<string, string> }[]>`
      select id, subject, payload from outbox
      where subject = ${deps.topology.subjects.mail("refund")} and payload->>'payment_id' = ${paymentId}`;

  it("goes to the customer's mailer when the surplus is sent, once, and not before", async () => {
    const row = await newPayment();
    const due = toCoinUnits(1250n, "USD", "USDC");
    await applyPaymentMessage(deps, row.id, assign("addr-over"));
    await applyPaymentMessage(deps, row.id, {
      type: "transfer_final",
      transferId: "solana:sig-over:0",
      coin: "USDC",
      amount: due + 2_000_000n,
      sender: "payer-1",
    });
    await applyPaymentMessage(deps, row.id, { type: "sweep_done", txid: "sweep-1" });
    expect(await notices(row.id)).toEqual([]);
    const refundId = `${row.id}:solana:sig-over:0:overpayment`;
    const sent = { type: "refund_sent", refundId, txid: "refund-sig" } as const;
    await applyPaymentMessage(deps, row.id, sent);
    expect(await applyPaymentMessage(deps, row.id, sent)).toMatchObject({
      decision: { rejected: { code: "duplicate" } },
    });
    const [notice, ...more] = await notices(row.id);
    expect(more).toEqual([]);
    expect(notice).toMatchObject({
      id: `refund-notice:${refundId}`,
      payload: { payment_id: row.id, refund_id: refundId },
    });
    expect(Number.isNaN(Date.parse(notice!.payload.sent_at!))).toBe(false);
  });

  it("goes with a simulated overpayment at once", async () => {
    const row = await newPayment();
    await applyPaymentMessage(deps, row.id, { type: "simulate", outcome: "overpaid" });
    expect((await notices(row.id)).map((n) => n.id)).toEqual([
      `refund-notice:${row.id}:simulated:overpayment`,
    ]);
  });
});

/**
 * The transaction, and how many statements went through it: postgres.js runs a query (not a
 * fragment placed in another) through its `handle` once.
 */
function counted(tx: TransactionSql): { tx: TransactionSql; statements: () => number } {
  let statements = 0;
  const wrapped = new Proxy(tx, {
    apply(target, self, args) {
      const query = Reflect.apply(target, self, args);
      if (typeof query?.handle !== "function") return query;
      const handle = query.handle.bind(query);
      query.handle = () => {
        if (!query.executed) statements += 1;
        return handle();
      };
      return query;
    },
  });
  return { tx: wrapped, statements: () => statements };
}

describe("applyPaymentMessages", () => {
  const eventsOf = async (paymentId: string) =>
    (
      await db.sql<{ type: string }[]>`select type from events where payment_id = ${paymentId} order by seq`
    ).map((e) => e.type);
  const postingsOf = async (paymentId: string) =>
    (
      await db.sql<{ kind: string }[]>`
        select kind from ledger_transfers where payment_id = ${paymentId} and linked_to is null order by reference`
    ).map((t) => t.kind);

  /** Every payment paid, and every fourth told to expire right after: refused, it adds nothing. */
  async function burst(size: number): Promise<{ ids: string[]; batch: ToPayment[] }> {
    const ids = await Promise.all(Array.from({ length: size }, async () => (await newPayment()).id));
    const batch = ids.flatMap((paymentId, i): ToPayment[] => [
      { paymentId, message: { type: "simulate", outcome: "paid" } },
      ...(i % 4 === 0 ? [{ paymentId, message: { type: "simulate", outcome: "expired" } } as const] : []),
    ]);
    return { ids, batch };
  }

  it("writes a batch in as many statements whatever its size, each payment credited once", async () => {
    // The first completion creates the book's ledger accounts; the batches below find them.
    await applyPaymentMessage(deps, (await newPayment()).id, { type: "simulate", outcome: "paid" });
    const statements: number[] = [];
    for (const size of [5, 50]) {
      const { ids, batch } = await burst(size);
      const results = await db.sql.begin(async (tx) => {
        const counting = counted(tx);
        const applied = await applyPaymentMessages(deps, counting.tx, batch);
        statements.push(counting.statements());
        return applied;
      });
      expect(results.map((r) => r?.decision.rejected?.code ?? r?.row.status)).toEqual(
        batch.map((m) =>
          m.message.type === "simulate" && m.message.outcome === "paid" ? "completed" : "not_applicable",
        ),
      );
      const [payments] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from payments where id = any(${ids}::uuid[]) and status = 'completed'`;
      expect(payments?.n).toBe(size);
      const [credits] = await db.sql<{ n: number; payments: number }[]>`
        select count(*)::int as n, count(distinct payment_id)::int as payments from ledger_transfers
        where payment_id = any(${ids}::uuid[]) and kind = 'payment_credited' and linked_to is null`;
      expect(credits).toEqual({ n: size, payments: size });
    }
    expect(statements[1]).toBe(statements[0]);
    expect(await checkLedger(db.sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
  });

  it("applies one payment's messages in arrival order, as one at a time would", async () => {
    const due = toCoinUnits(1250n, "USD", "USDC");
    const messages = (paymentId: string): PaymentMessage[] => [
      assign(`addr-${paymentId}`),
      {
        type: "transfer_final",
        transferId: `solana:${paymentId}:0`,
        coin: "USDC",
        amount: due + 2_000_000n,
        sender: "p",
      },
      { type: "sweep_done", txid: `sweep-${paymentId}` },
      { type: "refund_sent", refundId: `${paymentId}:solana:${paymentId}:0:overpayment`, txid: "refund-sig" },
      { type: "sweep_done", txid: `sweep-${paymentId}` },
    ];
    const alone = (await newPayment()).id;
    const oneByOne: (ApplyResult | undefined)[] = [];
    for (const message of messages(alone)) oneByOne.push(await applyPaymentMessage(deps, alone, message));
    const together = (await newPayment()).id;
    const other = (await newPayment()).id;
    // Another payment's messages in between change nothing for this one's.
    const batch = messages(together).flatMap((message): ToPayment[] => [
      { paymentId: together, message },
      { paymentId: other, message: { type: "simulate", outcome: "paid" } },
    ]);
    const results = await db.sql.begin((tx) => applyPaymentMessages(deps, tx, batch));
    const outcome = (r: (typeof oneByOne)[number]) => [
      r?.decision.rejected?.code,
      r?.row.status,
      r?.row.version,
    ];
    expect(results.filter((_, i) => i % 2 === 0).map(outcome)).toEqual(oneByOne.map(outcome));
    expect(await eventsOf(together)).toEqual(await eventsOf(alone));
    expect(await postingsOf(together)).toEqual(await postingsOf(alone));
    expect(await postingsOf(together)).toEqual(["payment_credited", "refund_owed", "refund_paid"]);
    const [row] = await db.sql<{ version: number; status: string }[]>`
      select version, status from payments where id = ${together}`;
    expect(row).toEqual({ version: oneByOne.at(-1)!.row.version, status: "completed" });
    expect(await checkLedger(db.sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
  });
});
