import { randomUUID } from "node:crypto";
import { wakeablePause } from "@gateway/bus";
import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import { openSecret, resolveWebhookTarget } from "@gateway/webhook-endpoints";
import { buildSignatureHeader } from "@gateway/webhook-signature";
import type { PostResult, WebhookHttpClient } from "./http-post.js";
import { nextAttemptAt } from "./retry-schedule.js";

export interface DeliveryWorkerOptions {
  sql: Sql;
  log: Logger;
  http: WebhookHttpClient;
  secretKey: Buffer;
  allowPrivate: boolean;
  /** Per attempt, connect to last byte. */
  timeoutMs: number;
  retrySchedule: readonly number[];
  /** Attempts in flight in this process, all endpoints together. */
  concurrency: number;
  /** Attempts in flight to one endpoint, so a slow endpoint can hold only this many slots. */
  endpointConcurrency: number;
  /** Fallback poll when no NOTIFY arrives; also the pace at which retries fall due. */
  pollMs: number;
}

export interface DeliveryWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Throws when the loop has not completed a pass recently (stuck, or the database is gone). */
  checkHealth(): void;
  stats(): { inFlight: number; attempted: number; succeeded: number };
}

interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  retry_until: Date;
  previous_next_attempt_at: Date;
  url: string;
  mode: Mode;
  secret_sealed: Buffer;
  deleted: boolean;
}

interface Outcome {
  id: string;
  token: string;
  attempt: number;
  startedAt: Date;
  result: PostResult;
  retryUntil: Date;
}

const SUCCESS = (code: number | null) => code !== null && code >= 200 && code < 300;

/**
 * Claims due deliveries with FOR UPDATE SKIP LOCKED (any number of replicas), pushes their
 * next_attempt_at ahead by a lease while the attempt runs, and writes each outcome with its next
 * due time. The schedule lives only in PostgreSQL: a stopped or crashed worker loses nothing.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { sql, log, http, secretKey, allowPrivate, timeoutMs, retrySchedule } = options;
  // Long enough for the attempt and the write of its outcome; after it, another worker may retry.
  const leaseMs = timeoutMs * 2 + 30_000;
  const token = randomUUID();
  const inFlight = new Set<Promise<void>>();
  const perEndpoint = new Map<string, number>();
  const secrets = new Map<string, string>();
  let outcomes: Outcome[] = [];
  let flushing: Promise<void> | undefined;
  let running = false;
  let loop: Promise<void> | undefined;
  const idle = wakeablePause();
  let unlisten: (() => Promise<void>) | undefined;
  let backlog = false;
  let lastPassAt = Date.now();
  let attempted = 0;
  let succeeded = 0;

  let woken = false;
  function poke() {
    woken = true;
    idle.wake();
  }

  function busyEndpoints(): string[] {
    return [...perEndpoint].filter(([, n]) => n >= options.endpointConcurrency).map(([id]) => id);
  }

  async function claim(limit: number): Promise<Claimed[]> {
    return sql<Claimed[]>`
      update webhook_deliveries d
      set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond', claim_token = ${token},
          updated_at = now()
      from (
        select id, next_attempt_at from webhook_deliveries
        where status = 'pending' and next_attempt_at <= now()
          and endpoint_id <> all(${busyEndpoints()}::text[])
        order by next_attempt_at
        limit ${limit}
        for update skip locked
      ) due, webhook_endpoints e
      where d.id = due.id and e.id = d.endpoint_id
      returning d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempts, d.retry_until,
        due.next_attempt_at as previous_next_attempt_at, e.url, e.mode, e.secret_sealed,
        e.deleted_at is not null as deleted`;
  }

  /** Gives back deliveries beyond an endpoint's share, due as before, for whoever has room. */
  async function release(rows: Claimed[]) {
    if (rows.length === 0) return;
    await sql`
      update webhook_deliveries d set next_attempt_at = v.at, claim_token = null
      from (select unnest(${rows.map((r) => r.id)}::text[]) as id,
                   unnest(${rows.map((r) => r.previous_next_attempt_at.toISOString())}::timestamptz[]) as at) v
      where d.id = v.id and d.claim_token = ${token}`;
  }

  async function cancel(rows: Claimed[]) {
    if (rows.length === 0) return;
    await sql`update webhook_deliveries set status = 'canceled', claim_token = null, updated_at = now()
      where id = any(${rows.map((r) => r.id)}::text[]) and claim_token = ${token}`;
  }

  function secretOf(row: Claimed): string {
    let secret = secrets.get(row.endpoint_id);
    if (secret === undefined) {
      secret = openSecret(secretKey, row.endpoint_id, row.secret_sealed);
      if (secrets.size > 10_000) secrets.clear();
      secrets.set(row.endpoint_id, secret);
    }
    return secret;
  }

  async function attempt(row: Claimed): Promise<void> {
    const startedAt = new Date();
    let result: PostResult;
    try {
      // Checked again now: the name may resolve elsewhere than at registration (DNS rebinding).
      const target = await resolveWebhookTarget(row.url, { mode: row.mode, allowPrivate });
      const timestamp = Math.floor(Date.now() / 1000);
      result = await http.post(
        target,
        {
          "content-type": "application/json",
          "user-agent": "Gateway-Webhooks/1.0",
          "x-gateway-signature": buildSignatureHeader(secretOf(row), timestamp, row.payload),
          "x-gateway-event-id": row.event_id,
          "x-gateway-event-type": row.event_type,
        },
        row.payload,
        timeoutMs,
      );
    } catch (err) {
      result = {
        statusCode: null,
        latencyMs: Date.now() - startedAt.getTime(),
        responseExcerpt: null,
        error: `not sent: ${(err as Error).message}`.slice(0, 300),
      };
    }
    attempted++;
    if (SUCCESS(result.statusCode)) succeeded++;
    outcomes.push({
      id: row.id,
      token,
      attempt: row.attempts + 1,
      startedAt,
      result,
      retryUntil: row.retry_until,
    });
    scheduleFlush();
  }

  function scheduleFlush() {
    if (flushing) return;
    flushing = (async () => {
      while (outcomes.length > 0) {
        const batch = outcomes;
        outcomes = [];
        try {
          await writeOutcomes(batch);
        } catch (err) {
          // Keep them; the lease covers a short database outage.
          log.warn({ err, count: batch.length }, "writing delivery outcomes failed; will retry");
          outcomes = batch.concat(outcomes);
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    })().finally(() => {
      flushing = undefined;
      if (outcomes.length > 0) scheduleFlush();
    });
  }

  async function writeOutcomes(batch: Outcome[]) {
    const now = new Date();
    const rows = batch.map((o) => {
      const ok = SUCCESS(o.result.statusCode);
      const next = ok ? undefined : nextAttemptAt(o.attempt, now, o.retryUntil, retrySchedule);
      return {
        id: o.id,
        token: o.token,
        attempt: o.attempt,
        status: ok ? "succeeded" : next ? "pending" : "failed",
        next: (next ?? now).toISOString(),
        started: o.startedAt.toISOString(),
        code: o.result.statusCode,
      };
    });
    // The three statements go out together (postgres.js pipelines the queries a transaction's
    // callback returns as an array), one round trip between begin and commit instead of three.
    await sql.begin((tx) => [
      // Planned for the rows at hand each time. A prepared statement's cached generic plan is
      // made once, with the sizes of its sixth execution: in a young database the deliveries
      // table is a few pages then, the plan joins the batch to a scan of the whole table, and it
      // is kept while the table grows.
      tx`set local plan_cache_mode = force_custom_plan`,
      // Arrays and unnest: seven parameters for the whole batch instead of seven per row.
      tx`
        insert into webhook_delivery_attempts
          (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error)
        select * from unnest(
          ${batch.map((o) => o.id)}::text[],
          ${batch.map((o) => o.attempt)}::int[],
          ${batch.map((o) => o.startedAt.toISOString())}::timestamptz[],
          ${batch.map((o) => o.result.statusCode) as number[]}::int[],
          ${batch.map((o) => o.result.latencyMs)}::int[],
          ${batch.map((o) => o.result.responseExcerpt) as string[]}::text[],
          ${batch.map((o) => o.result.error) as string[]}::text[])`,
      tx`
        update webhook_deliveries d
        set status = v.status, attempts = v.attempt, next_attempt_at = v.next, last_attempt_at = v.started,
            last_status_code = v.code, claim_token = null, updated_at = now()
        from (select
          unnest(${rows.map((r) => r.id)}::text[]) as id,
          unnest(${rows.map((r) => r.token)}::text[]) as token,
          unnest(${rows.map((r) => r.status)}::text[]) as status,
          unnest(${rows.map((r) => r.attempt)}::int[]) as attempt,
          unnest(${rows.map((r) => r.next)}::timestamptz[]) as next,
          unnest(${rows.map((r) => r.started)}::timestamptz[]) as started,
          unnest(${rows.map((r) => r.code) as number[]}::int[]) as code
        ) v
        where d.id = v.id and d.claim_token = v.token`,
    ]);
  }

  function startAttempt(row: Claimed) {
    perEndpoint.set(row.endpoint_id, (perEndpoint.get(row.endpoint_id) ?? 0) + 1);
    const task = attempt(row).finally(() => {
      inFlight.delete(task);
      const left = (perEndpoint.get(row.endpoint_id) ?? 1) - 1;
      if (left === 0) perEndpoint.delete(row.endpoint_id);
      else perEndpoint.set(row.endpoint_id, left);
      // A freed slot matters only when due work was left behind.
      if (backlog) poke();
    });
    inFlight.add(task);
  }

  async function pass() {
    const free = options.concurrency - inFlight.size;
    // Claim in batches: one query per freed slot would cost more than the attempts themselves.
    if (free <= 0 || (inFlight.size > 0 && free < Math.ceil(options.concurrency / 8))) return;
    const claimed = await claim(Math.min(free, 512));
    backlog = claimed.length === Math.min(free, 512);
    const toRelease: Claimed[] = [];
    const toCancel: Claimed[] = [];
    const planned = new Map<string, number>();
    for (const row of claimed) {
      if (row.deleted) {
        toCancel.push(row);
        continue;
      }
      const used = (perEndpoint.get(row.endpoint_id) ?? 0) + (planned.get(row.endpoint_id) ?? 0);
      if (used >= options.endpointConcurrency) {
        toRelease.push(row);
        continue;
      }
      planned.set(row.endpoint_id, (planned.get(row.endpoint_id) ?? 0) + 1);
      startAttempt(row);
    }
    await Promise.all([release(toRelease), cancel(toCancel)]);
    if (toRelease.length > 0) backlog = true;
  }

  async function run() {
    let failures = 0;
    while (running) {
      woken = false;
      try {
        await pass();
        lastPassAt = Date.now();
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 20 === 0) log.warn({ err, failures }, "delivery claim failed");
      }
      if (!running) break;
      const full = options.concurrency - inFlight.size < Math.ceil(options.concurrency / 8);
      // With a backlog and room, go again at once; otherwise sleep until NOTIFY, a freed slot or the poll.
      if (backlog && !full && failures === 0) continue;
      if (woken && failures === 0) {
        woken = false;
        continue;
      }
      await idle.pause(failures > 0 ? Math.min(options.pollMs * 2 ** failures, 5_000) : options.pollMs);
    }
  }

  return {
    async start() {
      if (running) return;
      running = true;
      const listener = await sql.listen("webhook_deliveries", poke);
      unlisten = listener.unlisten;
      lastPassAt = Date.now();
      loop = run();
    },
    async stop() {
      if (!running) return;
      running = false;
      poke();
      await loop;
      await Promise.allSettled([...inFlight]);
      // Outcomes not written within 10 s (database down) are left to the leases: those attempts
      // will be made again, which receivers absorb by de-duplicating on the event id.
      const flushed = (async () => {
        while (flushing) await flushing;
      })();
      const gaveUp = await Promise.race([
        flushed.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10_000).unref()),
      ]);
      if (gaveUp) log.warn({ unwritten: outcomes.length }, "stopping with delivery outcomes not recorded");
      await unlisten?.().catch(() => {});
    },
    checkHealth() {
      if (!running) throw new Error("delivery worker not running");
      const stale = Date.now() - lastPassAt;
      if (stale > Math.max(options.pollMs * 10, 30_000)) throw new Error(`no delivery pass for ${stale} ms`);
    },
    stats: () => ({ inFlight: inFlight.size, attempted, succeeded }),
  };
}
