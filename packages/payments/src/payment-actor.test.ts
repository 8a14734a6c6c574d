import { randomUUID } from "node:crypto";
import { busTopology } from "@gateway/bus";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES, toCoinUnits } from "@gateway/domain";
import { createLogger } from "@gateway/logging";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPaymentMessage, applyPaymentMessageToRow, type PaymentActorDeps } from "./payment-actor.js";
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
