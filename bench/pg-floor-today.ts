// Today's statements for one test payment, as bench/pg-floor.ts sends them. Settlement's step runs
// through its real code (`paymentMessageBatches`), the checkout's through the routes' own
// (`loadCheckout`, `insertWalletsWithState`, `enqueueSimulations`), the relay's through
// `relayBatch`; the notifier's statements are copied from ingest.ts and delivery-rows.ts: a change
// there is made here too.
import { randomUUID } from "node:crypto";
import { type FollowedRow, followedLogs, relayBatch } from "../packages/bus/src/followed-logs.js";
import { newId } from "../packages/db/src/ids.js";
import { decide, initialPaymentState } from "../packages/domain/src/index.js";
import { insertPayments, type PaymentRow, stateOf } from "../packages/payments/src/payment-row.js";
import { loadCheckout } from "../services/api/src/routes/checkout/load-checkout.js";
import { enqueueSimulations } from "../services/api/src/routes/checkout/simulate-statements.js";
import { insertWalletsWithState } from "../services/api/src/routes/checkout/wallet-statements.js";
import { paymentMessageBatches } from "../services/settlement/src/payment-message-batches.js";
import { type FloorContext, type FloorFlow, floorWallet, type Stage } from "./pg-floor-stages.js";

export function todayFlow({ sql, topology, merchantId, endpointId, batch }: FloorContext): FloorFlow {
  const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;
  const deps = { sql, topology, log: silent, publicBaseUrl: "http://127.0.0.1" };
  const settle = paymentMessageBatches(deps);
  let derivation = 0;
  const claimToken = randomUUID();
  const logs = followedLogs(topology);

  /**
   * The API's generate-wallet for a first choice of each payment: each request's read, then the
   * wallets and the states in one statement, as concurrent requests share it.
   */
  async function generateWallets(created: PaymentRow[]) {
    for (const payment of created) await loadCheckout(sql, payment.id, { chain: "solana", coin: "USDC" });
    await insertWalletsWithState(
      sql,
      created.map((payment) => {
        const address = `floor${randomUUID().replaceAll("-", "")}`;
        const wallet = {
          paymentId: payment.id,
          mode: "test" as const,
          chain: "solana" as const,
          coin: "USDC" as const,
          derivationIndex: derivation++,
          address,
          amountDue: 10_000_000n,
          quote: null,
        };
        const decision = decide(stateOf(payment), floorWallet(address));
        return { wallet, payment, state: decision.state };
      }),
    );
  }

  /** A relay's batch of one log, its own statements (followed-logs.ts), without the publish. */
  async function relay(log: "events" | "outbox") {
    let published: FollowedRow[] = [];
    await relayBatch(sql, logs.find((l) => l.name === log)!, 256, async (rows) => {
      published = rows;
    });
    return published;
  }

  /** The notifier: the deliveries inserted claimed by the ingest, then each outcome with its attempt. */
  async function notify(events: { id: string; type: string; payload: string }[]) {
    if (events.length === 0) return;
    await sql`select id, merchant_id, mode, events, url, secret_sealed from webhook_endpoints
      where merchant_id = any(${[merchantId]}::text[]) and deleted_at is null`;
    const rows = events.map((e) => ({ deliveryId: newId("whd"), ...e }));
    const claimed = await sql<{ id: string }[]>`
      insert into webhook_deliveries
        (id, endpoint_id, event_id, event_type, payload, status, retry_until, next_attempt_at, claim_token)
      select d.id, ${endpointId}, d.event_id, d.event_type, d.payload, 'pending',
        now() + interval '3 days', now() + interval '30 seconds', ${claimToken}
      from unnest(${rows.map((r) => r.deliveryId)}::text[], ${rows.map((r) => r.id)}::text[],
                  ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.payload)}::text[])
        as d(id, event_id, event_type, payload)
      on conflict (event_id, endpoint_id) do update
        set retry_until = webhook_deliveries.created_at + interval '3 days', updated_at = now()
        where webhook_deliveries.retry_until < webhook_deliveries.created_at + interval '3 days'
      returning id, retry_until, created_at, (xmax = 0) as inserted`;
    if (claimed.length === 0) return;
    const started = new Date().toISOString();
    const ids = claimed.map((c) => c.id);
    await sql.begin((tx) => [
      tx`set local plan_cache_mode = force_custom_plan`,
      tx`
        with updated as (
          update webhook_deliveries d
          set status = 'succeeded', attempts = 1, next_attempt_at = now(), last_attempt_at = v.started,
              last_status_code = 200, claim_token = null, updated_at = now()
          from (select unnest(${ids}::text[]) as id, unnest(${ids.map(() => started)}::timestamptz[]) as started) v
          where d.id = v.id and d.claim_token = ${claimToken})
        insert into webhook_delivery_attempts
          (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error)
        select * from unnest(
          ${ids}::text[], ${ids.map(() => 1)}::int[], ${ids.map(() => started)}::timestamptz[],
          ${ids.map(() => 200)}::int[], ${ids.map(() => 3)}::int[], ${ids.map(() => "ok")}::text[],
          ${ids.map(() => null) as unknown as string[]}::text[])`,
    ]);
  }

  /** `batch` test payments from create through `stage`. */
  async function payments(stage: Stage): Promise<number> {
    const created = await insertPayments(
      sql,
      Array.from({ length: batch }, () => ({
        state: initialPaymentState({
          id: randomUUID(),
          mode: "test",
          currency: "USD",
          amount: 1000n,
          fee: 10n,
          usdRate: null,
          expiresAt: Date.now() + 3_600_000,
        }),
        merchantId,
        description: null,
        redirectUrl: null,
      })),
    );
    await generateWallets(created);
    // simulate: the commands of concurrent requests, each with its checkout read, in one statement.
    const simulated = await enqueueSimulations(
      sql,
      topology.subjects.paymentCommand("simulate"),
      created.map((payment) => ({ paymentId: payment.id, message: { type: "simulate", outcome: "paid" } })),
    );
    if (!simulated.every((s) => s.enqueued)) throw new Error("a simulate command was refused");
    if (stage === "api") return created.length;
    await relay("outbox");
    // Settlement's consumer: commands arriving together share one transaction.
    await Promise.all(
      created.map((payment) =>
        settle({ paymentId: payment.id, message: { type: "simulate", outcome: "paid" } }),
      ),
    );
    const published = await relay("events");
    if (stage === "settlement") return created.length;
    await notify(
      published.map((r) => {
        const { event } = r.payload as { event: { type: string } };
        return { id: r.id, type: event.type, payload: JSON.stringify(event) };
      }),
    );
    return created.length;
  }

  return {
    payments,
    // Each relay takes whatever is unpublished, so the last batches leave nothing behind.
    async drain() {},
    async unfinished() {
      const [open] = await sql<
        { n: number }[]
      >`select count(*)::int as n from payments where status <> 'completed'`;
      return open!.n;
    },
  };
}
