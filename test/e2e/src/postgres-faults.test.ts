// Issue #21: no process dies by itself when PostgreSQL restarts. Every service (API, settlement,
// notifier, a Solana and a Sui watcher, with the signer and the local chains) runs as its own
// process on a PostgreSQL of this file's own, under a steady stream of test-mode payments with
// their webhooks and of live payments on both chains, while that PostgreSQL is restarted
// PG_FAULTS times and, separately, every service connection is ended with pg_terminate_backend
// PG_FAULTS times (each for more rounds while the load has not yet made more than PG_FAULTS
// payments under them). No process may exit, every request must end in its answer (a documented 503
// is for a database down longer than 10 s, which these are not), and every payment, event,
// sweep and refund must come out right.
import { randomUUID } from "node:crypto";
import { createTestMerchant, type TestMerchant } from "@gateway/api/testing";
import {
  type Cluster,
  checkLive,
  driveLivePayment,
  type LiveContext,
  type LivePaymentRecord,
  liveSettled,
  startCluster,
} from "@gateway/chaos-suite";
import { retryWhileUnavailable } from "@gateway/db";
import { startWebhookReceiver, type WebhookReceiver } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FAULTS = Number(process.env.PG_FAULTS ?? 20);
/**
 * Faults go on past FAULTS until the load has made more than FAULTS test-mode payments under
 * them (a slow machine makes fewer a round), but no further than this many rounds.
 */
const MAX_ROUNDS = FAULTS * 4;
const moreFaults = (rounds: number, load: Load) =>
  rounds < FAULTS || (load.payments.length <= FAULTS && rounds < MAX_ROUNDS);
/**
 * The pause after a round: `quick` for the first FAULTS rounds; the rounds past them come a
 * second or two apart, so they add faults under load without making one long storm. Sixty more
 * back-to-back rounds kept the database unusable for half a minute on a slow machine, and a
 * request cut off at every attempt for 10 s gets its documented 503 (once in CI, 2026-11-28;
 * its log was not kept, so the request is now named when that happens).
 */
const pauseAfter = (round: number, quick: () => number) =>
  round < FAULTS ? quick() : 1000 + Math.random() * 1000;
const OUTCOMES = { paid: "completed", underpaid: "refunded", expired: "expired" } as const;
type Outcome = keyof typeof OUTCOMES;

let cluster: Cluster;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let live: LiveContext;
let liveRun = 0;

beforeAll(async () => {
  cluster = await startCluster({
    apis: 1,
    settlements: 1,
    notifiers: 1,
    live: { watchersPerChain: 1 },
    artifacts: "postgres-faults",
    logLevel: process.env.PG_FAULTS_LOG_LEVEL ?? "warn",
  });
  receiver = await startWebhookReceiver();
  merchant = await createTestMerchant(cluster.sql, "Restart Shop");
  live = {
    live: cluster.live!,
    request: () => Promise.reject(new Error("set per load")),
    db: (query) => retryWhileUnavailable(() => query(cluster.sql), 60_000),
    merchants: [
      {
        merchantId: merchant.merchantId,
        email: `${merchant.merchantId}@example.test`,
        liveKey: merchant.liveKey,
        session: {},
      },
    ],
    runId: Date.now(),
    // No restore of the database from a backup in these runs.
    restoredSince: () => false,
    overlapsRestore: () => false,
    gate: async () => {},
  };
}, 300_000);

afterAll(async () => {
  await receiver?.close();
  await cluster?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the load saw: every answer that was neither the result nor a documented 503. */
interface Load {
  requests: number;
  /** The requests answered 503, each as method and path. */
  unavailable: string[];
  wrong: string[];
  payments: { id: string; outcome: Outcome }[];
  live: LivePaymentRecord[];
}

async function request(
  load: Load,
  method: string,
  path: string,
  body: unknown,
  key: string = randomUUID(),
  headers: Record<string, string> = { "x-api-key": merchant.testKey },
) {
  const started = Date.now();
  for (;;) {
    load.requests++;
    let res: Response;
    try {
      res = await fetch(cluster.apiUrls[0] + path, {
        method,
        headers: { ...headers, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      // The API is never killed here: a connection error means it died or hung.
      load.wrong.push(`${method} ${path}: ${String(err)}`);
      throw err;
    }
    const json = (await res.json().catch(() => null)) as { id: string; error?: { code: string } };
    if (res.status === 503 && json?.error?.code === "service_unavailable") {
      load.unavailable.push(`${method} ${path}`);
    } else if (res.status === 409 && json?.error?.code === "idempotency_request_in_progress") {
      // The first attempt is still running on the server; its answer is stored for this key.
    } else if (res.status >= 500) {
      load.wrong.push(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
    } else {
      return { status: res.status, body: json };
    }
    if (Date.now() - started > 60_000) throw new Error(`${method} ${path} unanswered for 60 s`);
    await sleep(200);
  }
}

const emptyLoad = (): Load => ({ requests: 0, unavailable: [], wrong: [], payments: [], live: [] });

/** Workers creating test-mode payments and simulating their outcomes until `until` says stop. */
function startLoad(until: () => boolean, workers = 3, liveWorkers = 2): { load: Load; done: Promise<void> } {
  const load = emptyLoad();
  const ctx: LiveContext = {
    ...live,
    request: (method, path, body, key, headers) => request(load, method, path, body, key, headers),
  };
  async function liveWorker() {
    while (!until()) load.live.push(await driveLivePayment(ctx, liveRun++));
  }
  const outcomes = Object.keys(OUTCOMES) as Outcome[];
  let n = 0;
  async function worker() {
    while (!until()) {
      const outcome = outcomes[n++ % outcomes.length]!;
      const created = await request(load, "POST", "/payments", { amount: 5, currency: "USD" });
      if (created.status !== 201) {
        load.wrong.push(`create → ${created.status} ${JSON.stringify(created.body)}`);
        continue;
      }
      const id = created.body.id;
      const sim = await request(load, "POST", `/payments/checkout/${id}/simulate`, { outcome });
      if (sim.status !== 202 && sim.status !== 409)
        load.wrong.push(`simulate → ${sim.status} ${JSON.stringify(sim.body)}`);
      load.payments.push({ id, outcome });
      await request(load, "GET", `/payments/${id}`, undefined).then((r) => {
        if (r.status !== 200) load.wrong.push(`get → ${r.status}`);
      });
    }
  }
  return {
    load,
    done: Promise.all([
      ...Array.from({ length: workers }, worker),
      ...Array.from({ length: liveWorkers }, liveWorker),
    ]).then(() => {}),
  };
}

/**
 * Every payment in its final state and every one of its events delivered, and on both chains
 * every deposit swept once and every refund made once; or what is not.
 */
async function settled(load: Load, timeoutMs = 180_000) {
  const ids = load.payments.map((p) => p.id);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await retryWhileUnavailable(
      () =>
        cluster.sql<{ id: string; status: string }[]>`select id, status from payments where id = any(${ids})`,
    );
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const wrong = load.payments
      .filter((p) => status.get(p.id) !== OUTCOMES[p.outcome])
      .map((p) => `${p.id} ${p.outcome} → ${status.get(p.id)}`);
    const events = await retryWhileUnavailable(
      () => cluster.sql<{ id: string }[]>`select id from events where payment_id = any(${ids})`,
    );
    const delivered = new Set(receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id));
    const missing = events.filter((e) => !delivered.has(e.id)).map((e) => e.id);
    const liveDone = await liveSettled(live, load.live, []);
    if ((wrong.length === 0 && missing.length === 0 && liveDone) || Date.now() > deadline) {
      const chains = await checkLive(live, load.live, [], { solana: 1n, sui: 0n });
      return {
        wrong: [...wrong, ...chains.wrongFinalState],
        missing,
        chains: chains.chainMismatches,
        sweeps: chains.sweeps,
        refunds: chains.refunds,
      };
    }
    await sleep(500);
  }
}

/**
 * The API's own account of its 5xx answers ("request failed", logged with the error and its
 * cause), for the message of a failed check: CI keeps only the end of its output.
 */
function apiFailures(): string {
  const lines = cluster.apis.flatMap((p) => p.output().split("\n"));
  return lines
    .filter((line) => line.includes('"msg":"request failed"'))
    .join("\n")
    .slice(0, 4000);
}

function crashes(): string[] {
  return cluster.services().flatMap((p) => p.crashes);
}

describe("services under PostgreSQL faults", () => {
  it("a webhook endpoint is registered", async () => {
    const load = emptyLoad();
    const res = await request(load, "POST", "/webhooks", { url: receiver.url });
    expect(res.status).toBe(201);
  });

  it(`PostgreSQL restarted ${FAULTS} times under load: no process exits, nothing is lost`, async () => {
    let faults = 0;
    let stopping = false;
    const { load, done } = startLoad(() => stopping);
    try {
      await sleep(500);
      for (; moreFaults(faults, load); faults++) {
        await cluster.restartPostgres();
        // Long enough for the pools to reconnect (and fetch their types) before the next restart.
        await sleep(pauseAfter(faults, () => 200 + Math.random() * 600));
      }
    } finally {
      stopping = true;
      console.log(`faults done at ${new Date().toISOString()}`);
      await done;
      console.log(`load done at ${new Date().toISOString()}`);
    }
    const { wrong, missing, chains, sweeps, refunds } = await settled(load);
    console.log(`settled at ${new Date().toISOString()}`);
    console.log(
      `restarts: ${faults}; requests ${load.requests}, 503 ${load.unavailable.length}, payments ${load.payments.length} test, ${load.live.length} live`,
    );
    expect(crashes()).toEqual([]);
    expect(load.wrong).toEqual([]);
    // 503 is documented for a database down longer than 10 s; these restarts are shorter, and
    // a request cut off by one is run again by the API (services/api/src/http/database-rerun.ts).
    expect(load.unavailable, apiFailures()).toEqual([]);
    expect(load.payments.length).toBeGreaterThan(FAULTS);
    expect(wrong).toEqual([]);
    expect(missing).toEqual([]);
    expect(load.live.length).toBeGreaterThan(0);
    expect(chains).toEqual([]);
    expect(sweeps.onChain).toBe(sweeps.expected);
    expect(refunds.onChain).toBe(refunds.expected);
  }, 300_000);

  it(`every service connection ended ${FAULTS} times under load: no process exits, nothing is lost`, async () => {
    let faults = 0;
    let ended = 0;
    let stopping = false;
    const { load, done } = startLoad(() => stopping);
    try {
      await sleep(500);
      for (; moreFaults(faults, load); faults++) {
        ended += await cluster.terminatePostgresConnections();
        // Short gaps: the next round often lands on connections still starting up.
        await sleep(pauseAfter(faults, () => 50 + Math.random() * 400));
      }
    } finally {
      stopping = true;
      console.log(`faults done at ${new Date().toISOString()}`);
      await done;
      console.log(`load done at ${new Date().toISOString()}`);
    }
    const { wrong, missing, chains, sweeps, refunds } = await settled(load);
    console.log(`settled at ${new Date().toISOString()}`);
    console.log(
      `terminations: ${faults} rounds, ${ended} connections; requests ${load.requests}, 503 ${load.unavailable.length}, payments ${load.payments.length} test, ${load.live.length} live`,
    );
    expect(ended).toBeGreaterThan(FAULTS);
    expect(crashes()).toEqual([]);
    expect(load.wrong).toEqual([]);
    // 503 is documented for a database down longer than 10 s; these restarts are shorter, and
    // a request cut off by one is run again by the API (services/api/src/http/database-rerun.ts).
    expect(load.unavailable, apiFailures()).toEqual([]);
    expect(load.payments.length).toBeGreaterThan(FAULTS);
    expect(wrong).toEqual([]);
    expect(missing).toEqual([]);
    expect(load.live.length).toBeGreaterThan(0);
    expect(chains).toEqual([]);
    expect(sweeps.onChain).toBe(sweeps.expected);
    expect(refunds.onChain).toBe(refunds.expected);
  }, 300_000);
});
