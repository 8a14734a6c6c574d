import { randomUUID } from "node:crypto";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES, serializePaymentState } from "@gateway/domain";
import { createTestDatabase, singleConnection, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPayment, type InsertPayment, insertPayment, insertPayments, stateOf } from "./payment-row.js";

let db: TestDatabase;
const merchantId = newId("mer");
beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
afterAll(() => db.drop());

function input(n: number): InsertPayment {
  const amount = 1250n + BigInt(n);
  return {
    state: initialPaymentState({
      id: randomUUID(),
      mode: n % 2 === 0 ? "test" : "live",
      currency: "USD",
      amount,
      fee: computeFee(amount, "USD", STATIC_TEST_PRICES),
      expiresAt: Date.UTC(2030, 0, 1, 0, 0, n),
    }),
    merchantId,
    description: n % 3 === 0 ? null : `order "${n}", {braced} \\ café`,
    redirectUrl: n % 2 === 0 ? null : `https://shop.example/done?n=${n}`,
  };
}

describe("insertPayments", () => {
  it("writes any number of payments with one statement text, every column as given", async () => {
    const one = singleConnection(db.url);
    try {
      const inputs: InsertPayment[] = [];
      for (const size of [1, 2, 5, 3]) {
        const batch = Array.from({ length: size }, (_, i) => input(inputs.length + i));
        const rows = await insertPayments(one.sql, batch);
        expect(rows.map((r) => r.id)).toEqual(batch.map((b) => b.state.id));
        inputs.push(...batch);
      }
      const stored = await db.sql<
        {
          id: string;
          mode: string;
          amount: bigint;
          fee: bigint;
          currency: string;
          status: string;
          description: string | null;
          redirect_url: string | null;
          state: unknown;
          expires_at: Date;
        }[]
      >`select id, mode, amount, fee, currency, status, description, redirect_url, state, expires_at
        from payments where id = any(${inputs.map((i) => i.state.id)}::uuid[])`;
      const byId = new Map(stored.map((row) => [row.id, row]));
      for (const { state, description, redirectUrl } of inputs) {
        expect(byId.get(state.id)).toEqual({
          id: state.id,
          mode: state.mode,
          amount: state.amount,
          fee: state.fee,
          currency: state.currency,
          status: state.status,
          description,
          redirect_url: redirectUrl,
          state: serializePaymentState(state),
          expires_at: new Date(state.expiresAt),
        });
      }
      expect(await one.preparedTexts("insert into payments")).toHaveLength(1);
    } finally {
      await one.sql.end();
    }
  });

  it("gives a row it inserted its state without decoding it, the state decoding would give", async () => {
    const { state } = input(7);
    const inserted = await insertPayment(db.sql, { ...input(7), state });
    expect(stateOf(inserted)).toBe(state);
    // The same row read back is decoded from what PostgreSQL holds: an equal state, another object.
    const read = await findPayment(db.sql, { id: state.id });
    expect(stateOf(read!)).not.toBe(state);
    expect(stateOf(read!)).toEqual(state);
  });
});
