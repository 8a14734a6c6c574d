import { newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneDeliveryLog } from "./retention.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

async function delivery(endpointId: string, status: string, ageDays: number) {
  const id = newId("whd");
  await db.sql`insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until, updated_at)
    values (${id}, ${endpointId}, ${newId("evt")}, 'payment.completed', '{}', ${status}, now(),
            now() - ${ageDays} * interval '1 day')`;
  await db.sql`insert into webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms)
    values (${id}, 1, now(), 200, 5)`;
  return id;
}

describe("pruneDeliveryLog", () => {
  it("deletes finished deliveries past the retention with their attempts, and nothing else", async () => {
    const merchantId = newId("mer");
    await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'r@x.test', 'R', 'x')`;
    const endpointId = newId("whk");
    await db.sql`insert into webhook_endpoints (id, merchant_id, mode, url, secret_sealed)
      values (${endpointId}, ${merchantId}, 'test', 'https://8.8.8.8/', '\\x00')`;
    const old = await Promise.all(
      ["succeeded", "failed", "canceled"].map((s) => delivery(endpointId, s, 31)),
    );
    const keep = [await delivery(endpointId, "pending", 40), await delivery(endpointId, "succeeded", 5)];

    expect(await pruneDeliveryLog(db.sql, { olderThanMs: 30 * 86_400_000, batchSize: 2 })).toBe(3);
    const left = (await db.sql<{ id: string }[]>`select id from webhook_deliveries`).map((r) => r.id);
    expect(left.sort()).toEqual([...keep].sort());
    const attempts =
      await db.sql`select 1 from webhook_delivery_attempts where delivery_id = any(${db.sql.array(old)}::text[])`;
    expect(attempts).toHaveLength(0);
  });
});
