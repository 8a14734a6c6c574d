import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "./client.js";
import { createAuditHeadStore } from "./signer-audit-heads.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

/** The pool, with its writes of audit heads counted (and the first `failing` of them refused). */
function countingWrites(sql: Sql, failing = 0) {
  const counted = { writes: 0 };
  const wrapped = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    if (strings.join("").includes("insert into signer_audit_heads")) {
      counted.writes++;
      if (counted.writes <= failing) return Promise.reject(new Error("write refused"));
    }
    return (sql as unknown as (s: TemplateStringsArray, ...v: unknown[]) => unknown)(strings, ...values);
  }) as unknown as Sql;
  return { sql: wrapped, counted };
}

const head = (seq: number) => ({ seq: BigInt(seq), hash: `h${seq}` });
const stored = async (caller: string) =>
  (
    await db.sql<{ seq: string; hash: string }[]>`
    select seq::text, hash from signer_audit_heads where caller = ${caller}`
  )[0];

describe("the audit head store", () => {
  it("writes the heads that arrive during a write together, the highest, and resolves each once it is stored", async () => {
    const { sql, counted } = countingWrites(db.sql);
    const store = createAuditHeadStore(sql, "coalesced");
    const seen: [number, bigint][] = [];
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.record(head(i + 1)).then(async () => {
          seen.push([i + 1, BigInt((await stored("coalesced"))!.seq)]);
        }),
      ),
    );
    // The first head's write, then one for the 49 that waited behind it.
    expect(counted.writes).toBe(2);
    expect(await stored("coalesced")).toEqual({ seq: "50", hash: "h50" });
    expect(seen).toHaveLength(50);
    for (const [seq, atResolve] of seen) expect(atResolve).toBeGreaterThanOrEqual(BigInt(seq));
    // A head already covered costs nothing; a lower one never moves the row back.
    await store.record(head(7));
    expect(counted.writes).toBe(2);
    await store.record(head(51));
    expect(counted.writes).toBe(3);
    expect(await stored("coalesced")).toEqual({ seq: "51", hash: "h51" });
  });

  it("fails the records a refused write covered, and writes the ones waiting behind it", async () => {
    const { sql, counted } = countingWrites(db.sql, 1);
    const store = createAuditHeadStore(sql, "refused");
    const outcomes = await Promise.allSettled([store.record(head(1)), store.record(head(2))]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "fulfilled"]);
    expect(counted.writes).toBe(2);
    expect(await stored("refused")).toEqual({ seq: "2", hash: "h2" });
    // Nothing is left in flight: the next head is written at once.
    await store.record(head(3));
    expect(await stored("refused")).toEqual({ seq: "3", hash: "h3" });
  });
});
