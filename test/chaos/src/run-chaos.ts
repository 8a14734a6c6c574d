import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { createSessionStore, createSessionTokens, createTestMerchant } from "@gateway/api/testing";
import { retryWhileUnavailable } from "@gateway/db";
import { checkLedger, type LedgerCheck } from "@gateway/ledger";
import { startWebhookReceiver } from "@gateway/testkit";
import { type Cluster, startCluster } from "./cluster.js";
import {
  type BackupFigures,
  backupDatabase,
  restoreDatabase,
  runAfterRestore,
  runChainsOnly,
  runCommand,
} from "./database-restore.js";
import {
  intentsInFlight,
  type JournalRows,
  loseSettlementJournal,
  waitForIntentsInFlight,
} from "./journal-faults.js";
import {
  checkLive,
  driveLivePayment,
  drivePayout,
  type LiveContext,
  type LiveFigures,
  type LiveMerchant,
  type LivePaymentRecord,
  liveSettled,
  type PayoutRecord,
} from "./live-stream.js";
import type { ManagedProcess } from "./managed-process.js";

export const OUTCOMES = {
  paid: "completed",
  overpaid: "completed",
  underpaid: "refunded",
  expired: "expired",
} as const;
type Outcome = keyof typeof OUTCOMES;

export interface ChaosOptions {
  /** Test-mode payments (simulated outcomes). */
  payments: number;
  /** Live payments on the local Solana and Sui networks (chains alternate, kinds rotate); 0: none. */
  livePayments?: number;
  /** Live manual payouts per chain, made while the faults go on. */
  payoutsPerChain?: number;
  /** SIGKILLs (or restarts, for NATS and PostgreSQL) of each process type. */
  faultsPerType: number;
  concurrency?: number;
  /** Clients go on while a restore's window is open (see the pacing in `drive`). */
  clientWorkInRestoreWindows?: boolean;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  payments: number;
  byOutcome: Record<string, number>;
  wrongFinalState: string[];
  events: number;
  eventsDelivered: number;
  eventsMissing: string[];
  deliveries: number;
  redeliveries: number;
  unstableEventIds: string[];
  faults: Record<string, number>;
  requests: number;
  serverErrors: { inFlightOnKilled: number; duringInfraRestart: number; other: string[] };
  retriedAfterConnectionError: number;
  /** Requests whose Idempotency-Key stayed "in progress" past the 60 s abandonment (findings). */
  stuckIdempotencyKeys: string[];
  /** Retries that found their key "in progress" (a killed API's claim, or the first try still running). */
  keysWaitedOn: number;
  /** Restarts after a SIGKILL that failed (each retried up to three times). */
  restartFailures: string[];
  /** Processes that died without being killed (restarted like a supervisor would). */
  crashes: string[];
  /** The signer's chain at the end: checkpoints written (segments archived) and `signer verify`'s verdict. */
  signerChain: { checkpoints: number; verify: string };
  /** Live payments, payouts and what the chains say, when the run had any. */
  live?: LiveFigures;
  /**
   * Each journal fault: the intents in flight when it struck, the rows it deleted; for a restore
   * of the whole database, what the backup held, what the database held when it was put back,
   * and what the runbook's after-restore step said.
   */
  journal: {
    lost: { inFlight: number; rows: JournalRows }[];
    restored: {
      inFlightAtBackup: number;
      inFlightAtRestore: number;
      secondsAfterBackup: number;
      backup: BackupFigures;
      atRestore: { payments: number; payouts: number };
      afterRestore: string[];
    }[];
    /** What `after-restore --chains-only` said once the run had settled. */
    chainsOnly: string[];
  };
  /** Test-mode payments a restore's window overlapped (not in the checks above), by final state. */
  touchedByRestore: Record<string, number>;
  ledger: LedgerCheck;
  settleSeconds: number;
  totalSeconds: number;
}

// The API's JSON answers, read only for `id` and errors.
type ApiBody = { id: string; error?: { code: string } };

type FaultType =
  | "api"
  | "settlement"
  | "notifier"
  | "signer"
  | "watcher-solana"
  | "watcher-sui"
  | "nats"
  | "postgres"
  | "settlement-journal-lost"
  | "database-restored";

/**
 * Test-mode payments of every outcome and their webhooks through the cluster as processes while
 * processes are SIGKILLed and NATS and PostgreSQL restart; then the books are checked.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const log = options.log ?? (() => {});
  const t0 = Date.now();
  const live = (options.livePayments ?? 0) > 0;
  const cluster = await startCluster(live ? { live: {} } : {});
  const receiver = await startWebhookReceiver();
  try {
    return await drive(cluster, receiver, options, log, t0);
  } finally {
    await receiver.close();
    await cluster.close();
  }
}

async function drive(
  cluster: Cluster,
  receiver: Awaited<ReturnType<typeof startWebhookReceiver>>,
  options: ChaosOptions,
  log: (line: string) => void,
  t0: number,
): Promise<ChaosFigures> {
  const merchant = await createTestMerchant(cluster.sql, "Chaos Shop");
  const faults: Partial<Record<FaultType, number>> = {
    api: 0,
    settlement: 0,
    notifier: 0,
    signer: 0,
    ...(cluster.live ? { "watcher-solana": 0, "watcher-sui": 0 } : {}),
    nats: 0,
    postgres: 0,
    // What settlement recorded about signing, lost or rolled back to a mid-run backup: the
    // signer must still let each sweep, refund and payout happen once (live money only).
    ...(cluster.live ? { "settlement-journal-lost": 0, "database-restored": 0 } : {}),
  };
  const journal: ChaosFigures["journal"] = { lost: [], restored: [], chainsOnly: [] };
  /** The signer records each restore acted on, for the chains-only step once the run settles. */
  const recordFiles: string[] = [];
  // From each backup to the services' restart after its restore: what the clients did then may
  // be un-done (their payments gone or rolled back), so only money safety is checked for it.
  const restoreWindows: RestoreWindow[] = [];
  const overlapsRestore = (from: number, to: number) =>
    restoreWindows.some((w) => w.from <= to && w.to >= from);
  const restoredSince = (since: number) => restoreWindows.some((w) => (w.restoredAt ?? 0) >= since);
  // When each API process was last down, to tell in-flight casualties from real 5xx.
  const apiDown = cluster.apis.map(() => ({ from: 0, to: 0 }));
  let infraRestart = { from: 0, to: 0 };
  const serverErrors = { inFlightOnKilled: 0, duringInfraRestart: 0, other: [] as string[] };
  let requests = 0;
  let retried = 0;
  const stuckIdempotencyKeys: string[] = [];
  let keysWaitedOn = 0;
  const restartFailures: string[] = [];
  let clientRequestsInFlight = 0;

  async function request(
    method: string,
    path: string,
    body: unknown,
    idem: string,
    headers: Record<string, string> = { "x-api-key": merchant.testKey },
  ): Promise<{ status: number; body: ApiBody }> {
    await gate();
    clientRequestsInFlight++;
    try {
      return await requestOnce(method, path, body, idem, headers);
    } finally {
      clientRequestsInFlight--;
    }
  }

  async function requestOnce(
    method: string,
    path: string,
    body: unknown,
    idem: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: ApiBody }> {
    let key = idem;
    const firstTry = Date.now();
    let last = "";
    let inProgressSince = 0;
    for (let attempt = 0; ; attempt++) {
      const i = (attempt + Math.floor(Math.random() * cluster.apis.length)) % cluster.apis.length;
      const started = Date.now();
      requests++;
      try {
        const res = await fetch(cluster.apiUrls[i] + path, {
          method,
          headers: { ...headers, "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const json = (await res.json().catch(() => null)) as ApiBody;
        // The first attempt may still be running on the server (its client gave up during a
        // restart): wait for it rather than take "in progress" for an answer.
        if (res.status === 409 && json?.error?.code === "idempotency_request_in_progress") {
          if (!inProgressSince) {
            inProgressSince = Date.now();
            keysWaitedOn++;
          }
          // A key claimed by an API process that was then SIGKILLed is taken over by a retry
          // once the claim is 60 s old. One still "in progress" well past that is a finding; the
          // request then goes on under a new key, as a client would have to.
          if (Date.now() - inProgressSince > 90_000) {
            stuckIdempotencyKeys.push(`${method} ${path} ${key}`);
            key = `${idem}-after-stuck`;
            inProgressSince = 0;
          }
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        if (res.status < 500) return { status: res.status, body: json };
        const ended = Date.now();
        const down = apiDown[i]!;
        if (down.from && down.from <= ended && down.to >= started - 1000) serverErrors.inFlightOnKilled++;
        else if (
          infraRestart.from &&
          infraRestart.from <= ended + 2000 &&
          started <= infraRestart.to + 10_000
        )
          serverErrors.duringInfraRestart++;
        else serverErrors.other.push(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
        last = `${res.status} ${JSON.stringify(json)}`;
      } catch (err) {
        retried++;
        last = String(err);
      }
      // Covers a PostgreSQL restart plus both APIs reconnecting on this shared box, and the 60 s
      // after which a killed API's idempotency claim is taken over.
      if (Date.now() - firstTry > 180_000) {
        throw new Error(
          `${method} ${path} never succeeded in 180 s (${attempt + 1} attempts; last: ${last})`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const endpoint = await request("POST", "/webhooks", { url: receiver.url }, randomUUID());
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${JSON.stringify(endpoint.body)}`);

  // The fault schedule: every type the same number of times, in random order, spread over the run.
  const schedule: FaultType[] = [];
  for (const type of Object.keys(faults) as FaultType[]) {
    for (let k = 0; k < options.faultsPerType; k++) schedule.push(type);
  }
  schedule.sort(() => Math.random() - 0.5);
  let driving = true;
  let faultsStarted = 0;
  // The clients are paced by the faults started. With `clientWorkInRestoreWindows` (the suite's
  // default) they go on while a restore's backup ages, by one more fault's worth, so payments are
  // created, paid, expired and paid out between the backup and the restore, and after-restore must
  // book what the chains show for deposit wallets the restore took away (docs/reliability.md).
  // Without it every client action (an API call, a payment on chain, an expiry) waits while a
  // restore's window is open (`gate`), so a restore takes back only what the services did.
  let paceCredit = 0;
  const paced = () => faultsStarted + paceCredit;
  /** Holds a client action while a restore's window is open (unless the run lets them on). */
  async function gate(): Promise<void> {
    if (options.clientWorkInRestoreWindows) return;
    while (restoreWindows.some((w) => w.to === Number.POSITIVE_INFINITY)) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function killAndRestart(p: ManagedProcess, onDown?: () => void, onUp?: () => void) {
    onDown?.();
    await p.kill();
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 700));
    await startAgain(p);
    onUp?.();
  }
  /**
   * A process that will not come back after a crash is a finding; it gets three more tries so
   * the rest of the run still means something.
   */
  async function startAgain(p: ManagedProcess) {
    for (let attempt = 0; ; attempt++) {
      try {
        await p.start();
        return;
      } catch (err) {
        restartFailures.push(`${p.name}: ${String(err).split("\n")[0]}`);
        if (attempt >= 3) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)] as T;

  /**
   * `database-restored`: a backup of the whole database now, struck while an intent is in flight;
   * everything goes on (payments, sweeps, refunds, payouts, webhooks) for 8 to 15 s; then every
   * service that uses the database stops, the database is put back to the backup, the runbook's
   * after-restore step runs with the signer's record, and the services start again
   * (docs/operations.md, "Restoring PostgreSQL from a backup"). The signer keeps running.
   */
  async function restoreMidRunBackup() {
    const name = `backup_${Date.now()}`;
    const inFlightAtBackup = await waitForIntentsInFlight(cluster.sql, 15_000);
    const window: RestoreWindow = { from: Date.now(), to: Number.POSITIVE_INFINITY };
    restoreWindows.push(window);
    // The gate is shut: the backup waits for the client requests already past it (up to 20 s).
    const shut = Date.now();
    while (!options.clientWorkInRestoreWindows && clientRequestsInFlight > 0 && Date.now() - shut < 20_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const backup = await backupDatabase(cluster.sql, name);
    if (options.clientWorkInRestoreWindows) paceCredit++;
    await new Promise((r) => setTimeout(r, 8_000 + Math.random() * 7_000));
    const users = cluster.services().filter((p) => p !== cluster.signer);
    for (const down of apiDown) Object.assign(down, { from: Date.now(), to: Number.MAX_SAFE_INTEGER });
    await Promise.all(users.map((p) => p.kill()));
    const inFlightAtRestore = await intentsInFlight(cluster.sql);
    const [atRestore] = await retryWhileUnavailable(
      () => cluster.sql<{ payments: number; payouts: number }[]>`
        select (select count(*) from payments)::int as payments, (select count(*) from payouts)::int as payouts`,
      60_000,
    );
    await restoreDatabase(cluster.sql, name);
    window.restoredAt = Date.now();
    const { lines: afterRestore, recordFile } = await runAfterRestore({
      auditLog: cluster.signerAuditLog,
      dir: cluster.dir,
      env: cluster.afterRestoreEnv,
    });
    recordFiles.push(recordFile);
    journal.restored.push({
      inFlightAtBackup,
      inFlightAtRestore,
      secondsAfterBackup: Math.round((window.restoredAt - window.from) / 1000),
      backup,
      atRestore: atRestore!,
      afterRestore,
    });
    for (const p of users) await startAgain(p);
    for (const down of apiDown) down.to = Date.now();
    window.to = Date.now();
  }

  const chaos = (async () => {
    for (const type of schedule) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1500));
      log(`fault: ${type}`);
      faultsStarted++;
      if (type === "api") {
        const i = Math.floor(Math.random() * cluster.apis.length);
        await killAndRestart(
          cluster.apis[i]!,
          () => (apiDown[i] = { from: Date.now(), to: Number.MAX_SAFE_INTEGER }),
          () => (apiDown[i]!.to = Date.now()),
        );
      } else if (type === "settlement") await killAndRestart(pick(cluster.settlements));
      else if (type === "notifier") await killAndRestart(pick(cluster.notifiers));
      else if (type === "signer") await killAndRestart(cluster.signer);
      else if (type === "watcher-solana") await killAndRestart(pick(cluster.live!.watchersSolana));
      else if (type === "watcher-sui") await killAndRestart(pick(cluster.live!.watchersSui));
      else if (type === "settlement-journal-lost") {
        // Struck while an intent is under way (up to 15 s wait), not at an idle table.
        const inFlight = await waitForIntentsInFlight(cluster.sql, 15_000);
        journal.lost.push({ inFlight, rows: await loseSettlementJournal(cluster.sql) });
      } else if (type === "database-restored") await restoreMidRunBackup();
      else {
        infraRestart = { from: Date.now(), to: Number.MAX_SAFE_INTEGER };
        if (type === "nats") await cluster.restartNats();
        else await cluster.restartPostgres();
        infraRestart.to = Date.now();
      }
      faults[type] = (faults[type] ?? 0) + 1;
    }
    // Keep faulting until the payments are all in, so the schedule covers the whole stream.
    while (driving) await new Promise((r) => setTimeout(r, 200));
  })();

  const faultsDone = () => Object.values(faults).reduce((a, b) => a + b, 0);
  const outcomes = Object.keys(OUTCOMES) as Outcome[];
  const created: { id: string; outcome: Outcome; from: number; to: number }[] = [];
  let next = 0;
  async function worker() {
    while (next < options.payments) {
      const n = next++;
      // Paced by the fault schedule, so payments are in flight through every fault rather than
      // all in before the first.
      while (paced() < Math.floor((n / options.payments) * schedule.length)) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const outcome = outcomes[n % outcomes.length]!;
      const from = Date.now();
      const p = await request(
        "POST",
        "/payments",
        { amount: 5 + (n % 7), currency: "USD" },
        `pay-${n}-${t0}`,
      );
      if (p.status !== 201) throw new Error(`create payment: ${p.status} ${JSON.stringify(p.body)}`);
      const sim = await request(
        "POST",
        `/payments/checkout/${p.body.id}/simulate`,
        { outcome },
        `sim-${n}-${t0}`,
      );
      // A payment created just before a backup may be gone after its restore.
      const gone = sim.status === 404 && restoredSince(from);
      if (sim.status !== 202 && sim.status !== 409 && !gone)
        throw new Error(`simulate: ${sim.status} ${JSON.stringify(sim.body)}`);
      created.push({ id: p.body.id, outcome, from, to: Date.now() });
      if (created.length % 100 === 0) log(`${created.length} payments in`);
    }
  }
  // The live stream: its own workers, paced by the same schedule, and the payouts alongside.
  const liveCtx = cluster.live
    ? await liveContext(cluster, merchant, request, t0, Math.max(1, options.payoutsPerChain ?? 0), {
        overlapsRestore,
        restoredSince,
        gate,
      })
    : undefined;
  const livePayments: LivePaymentRecord[] = [];
  const payouts: PayoutRecord[] = [];
  const liveTotal = options.livePayments ?? 0;
  let nextLive = 0;
  async function liveWorker() {
    while (liveCtx && nextLive < liveTotal) {
      const n = nextLive++;
      while (paced() < Math.floor((n / liveTotal) * schedule.length)) {
        await new Promise((r) => setTimeout(r, 50));
      }
      livePayments.push(await driveLivePayment(liveCtx, n));
      if (livePayments.length % 10 === 0) log(`${livePayments.length} live payments in`);
    }
  }
  // One payout at a time: a merchant has one live payout code at a time (a new one replaces
  // it), and payout k on each chain is merchant k's.
  async function payoutWorker() {
    for (let k = 0; liveCtx && k < (options.payoutsPerChain ?? 0); k++) {
      // Spread over the run: the first once a third of the faults have happened.
      while (paced() < Math.floor(((k + 1) / ((options.payoutsPerChain ?? 0) + 2)) * schedule.length)) {
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const chain of ["solana", "sui"] as const) {
        payouts.push(await drivePayout(liveCtx, chain, k));
        log(`payout ${chain} ${k + 1} requested`);
      }
    }
  }
  await Promise.all([
    ...Array.from({ length: options.concurrency ?? 6 }, worker),
    ...Array.from({ length: liveCtx ? 4 : 0 }, liveWorker),
    payoutWorker(),
  ]);
  // Wait for the whole fault schedule even if the payments went in faster.
  while (faultsDone() < schedule.length) {
    await new Promise((r) => setTimeout(r, 200));
  }
  driving = false;
  await chaos;

  // Settle: every payment final and every event delivered, or the deadline.
  const settleStart = Date.now();
  const ids = created.map((c) => c.id);
  let wrong: string[] = [];
  let missing: string[] = [];
  let events: { id: string; type: string }[] = [];
  const touched = (c: (typeof created)[number]) => overlapsRestore(c.from, c.to);
  let status = new Map<string, string>();
  for (;;) {
    const rows = await cluster.sql<
      { id: string; status: string }[]
    >`select id, status from payments where id = any(${ids})`;
    status = new Map(rows.map((r) => [r.id, r.status]));
    wrong = created
      .filter((c) => !touched(c) && status.get(c.id) !== OUTCOMES[c.outcome])
      .map((c) => `${c.id} ${c.outcome} → ${status.get(c.id)}`);
    events = await cluster.sql<
      { id: string; type: string }[]
    >`select id, type from events where payment_id = any(${ids})`;
    const delivered = new Set(receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id));
    missing = events.filter((e) => !delivered.has(e.id)).map((e) => `${e.id} ${e.type}`);
    const liveDone = liveCtx ? await liveSettled(liveCtx, livePayments, payouts) : true;
    if ((wrong.length === 0 && missing.length === 0 && liveDone) || Date.now() - settleStart > 240_000) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  // Stable ids: every delivery of one event id carries the same event.
  const byId = new Map<string, string>();
  const unstable = new Set<string>();
  for (const r of receiver.received) {
    const event = JSON.parse(r.body) as { id: string; type: string; data?: unknown };
    const fingerprint = JSON.stringify({ type: event.type, data: event.data });
    const seen = byId.get(event.id);
    if (seen !== undefined && seen !== fingerprint) unstable.add(event.id);
    byId.set(event.id, fingerprint);
  }
  // The runbook's later step: what was not final on chain at a restore is booked now, if it landed.
  for (const file of recordFiles) journal.chainsOnly.push(...runChainsOnly(file, cluster.afterRestoreEnv));
  const liveFigures = liveCtx
    ? await checkLive(liveCtx, livePayments, payouts, { solana: 1n, sui: 0n })
    : undefined;
  const byOutcome: Record<string, number> = {};
  for (const c of created) byOutcome[c.outcome] = (byOutcome[c.outcome] ?? 0) + 1;
  const touchedByRestore: Record<string, number> = {};
  for (const c of created.filter(touched)) {
    const state = status.get(c.id) === OUTCOMES[c.outcome] ? "as asked" : (status.get(c.id) ?? "gone");
    touchedByRestore[state] = (touchedByRestore[state] ?? 0) + 1;
  }
  return {
    payments: created.length,
    byOutcome,
    wrongFinalState: wrong,
    events: events.length,
    eventsDelivered: events.length - missing.length,
    eventsMissing: missing,
    deliveries: receiver.received.length,
    redeliveries: receiver.received.length - byId.size,
    unstableEventIds: [...unstable],
    faults,
    requests,
    serverErrors,
    retriedAfterConnectionError: retried,
    stuckIdempotencyKeys,
    keysWaitedOn,
    restartFailures,
    crashes: [...cluster.services(), ...(cluster.live?.localnets ?? [])].flatMap((p) => p.crashes),
    signerChain: signerChainFigures(cluster.signerAuditLog),
    ...(liveFigures ? { live: liveFigures } : {}),
    journal,
    touchedByRestore,
    ledger: await checkLedger(cluster.sql),
    settleSeconds: Math.round((Date.now() - settleStart) / 1000),
    totalSeconds: Math.round((Date.now() - t0) / 1000),
  };
}

/** Verified offline as an operator would, across every archived segment and state file. */
function signerChainFigures(auditLog: string): ChaosFigures["signerChain"] {
  const archive = `${auditLog}.archive`;
  const checkpoints = existsSync(archive) ? readdirSync(archive).length : 0;
  let verify = runCommand("signer/src/cli.ts", ["verify", auditLog], {});
  // A rotation between the listing and the reading fails the check once; it is read again.
  if (verify.status !== 0) verify = runCommand("signer/src/cli.ts", ["verify", auditLog], {});
  return { checkpoints, verify: `${verify.out}${verify.err}`.trim() };
}

export function formatFigures(f: ChaosFigures): string {
  return [
    `payments: ${f.payments} (${Object.entries(f.byOutcome)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")})`,
    `in the right final state: ${f.payments - f.wrongFinalState.length}/${f.payments}`,
    `events: ${f.events}; delivered at least once: ${f.eventsDelivered}/${f.events}; deliveries ${f.deliveries} (${f.redeliveries} repeats); ids with differing content: ${f.unstableEventIds.length}`,
    `faults: ${Object.entries(f.faults)
      .map(([k, v]) => `${k} ×${v}`)
      .join(", ")}`,
    `requests: ${f.requests}; 5xx in flight on a killed API: ${f.serverErrors.inFlightOnKilled}; 5xx during a NATS/PostgreSQL restart: ${f.serverErrors.duringInfraRestart}; other 5xx: ${f.serverErrors.other.length}; connection errors retried: ${f.retriedAfterConnectionError}; retries that waited on a key "in progress": ${f.keysWaitedOn}, still stuck after 90 s: ${f.stuckIdempotencyKeys.length}; failed restarts: ${f.restartFailures.length}${f.restartFailures.length ? ` (${f.restartFailures.join("; ")})` : ""}`,
    `processes that crashed by themselves: ${f.crashes.length}`,
    ...f.crashes.map((c) => `  crash: ${c.split("\n")[0]}`),
    ...(f.live ? formatLive(f.live) : []),
    ...f.journal.lost.map(
      (l) =>
        `settlement journal lost with ${l.inFlight} intents in flight; rows deleted: ${formatRows(l.rows)}`,
    ),
    ...f.journal.restored.map(
      (r) =>
        `database restored to a backup ${r.secondsAfterBackup} s old (intents in flight at backup ${r.inFlightAtBackup}, at restore ${r.inFlightAtRestore}; payments ${r.atRestore.payments} → ${r.backup.payments}, payouts ${r.atRestore.payouts} → ${r.backup.payouts}; ${r.backup.tables} tables, ${r.backup.rows} rows); after-restore: ${r.afterRestore.filter((l) => !l.startsWith("deposit address")).join(" / ")}; ${r.afterRestore.filter((l) => l.startsWith("deposit address")).length} addresses no payment expects`,
    ),
    ...(f.journal.restored.length > 0
      ? [
          `after-restore --chains-only once settled: ${f.journal.chainsOnly.join(" / ") || "nothing left to book"}`,
        ]
      : []),
    `test-mode payments a restore overlapped: ${Object.entries(f.touchedByRestore)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    `ledger: balances sum to ${f.ledger.total}; transfers across books ${f.ledger.crossedTransfers.length}; accounts drifted from their transfers ${f.ledger.driftedAccounts.length}`,
    `signer: ${f.signerChain.checkpoints} checkpoints written; signer verify: ${f.signerChain.verify}`,
    `settled ${f.settleSeconds} s after the last fault; whole run ${f.totalSeconds} s`,
  ].join("\n");
}

function formatRows(rows: JournalRows): string {
  return Object.entries(rows)
    .map(([table, n]) => `${table} ${n}`)
    .join(", ");
}

function formatLive(l: LiveFigures): string[] {
  const t = l.touched;
  return [
    `live payments a restore overlapped: ${t.payments} (${Object.entries(t.byFinalState)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ", ",
      )}); their sweeps ${t.sweeps}, refunds ${t.refunds}; held at deposits no payment expects: ${t.heldAtDeposit.length}; payouts ${t.payouts} (put back ${t.payoutsPutBack}, gone ${t.payoutsGone})`,
    `live payments: ${l.payments} (${Object.entries(l.byKind)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}); in the right final state: ${l.payments - l.wrongFinalState.length}/${l.payments}`,
    `live payouts: ${l.payouts}; completed: ${l.payouts - l.payoutsNotCompleted.length}/${l.payouts}`,
    `on chain: sweeps ${l.sweeps.onChain}/${l.sweeps.expected} expected, refunds ${l.refunds.onChain}/${l.refunds.expected}, payouts ${l.payoutTransfers.onChain}/${l.payoutTransfers.expected}; address mismatches ${l.chainMismatches.length}`,
    ...l.chainMismatches.slice(0, 20).map((m) => `  mismatch: ${m}`),
    ...l.wrongFinalState.slice(0, 20).map((m) => `  wrong final state: ${m}`),
    ...l.payoutsNotCompleted.slice(0, 20).map((m) => `  payout not completed: ${m}`),
    `vaults (USDC base units): ${l.vaults
      .map((v) => `${v.chain} on chain ${v.onChain}, ledger ${v.ledger}`)
      .join("; ")}`,
  ];
}

/**
 * The merchants of the live stream: the run's merchant and one more per payout beyond the
 * first, each with a dashboard session and its mailbox.
 */
async function liveContext(
  cluster: Cluster,
  merchant: Awaited<ReturnType<typeof createTestMerchant>>,
  request: LiveContext["request"],
  runId: number,
  merchantCount: number,
  restores: Pick<LiveContext, "overlapsRestore" | "restoredSince" | "gate">,
): Promise<LiveContext> {
  const sessions = createSessionTokens({
    secret: cluster.jwtSecret,
    ttlSeconds: 86_400,
    store: createSessionStore(cluster.sql),
  });
  const all = [merchant];
  for (let i = 1; i < merchantCount; i++)
    all.push(await createTestMerchant(cluster.sql, `Chaos Shop ${i + 1}`));
  const merchants: LiveMerchant[] = [];
  for (const m of all) {
    merchants.push({
      merchantId: m.merchantId,
      email: `${m.merchantId}@example.test`,
      liveKey: m.liveKey,
      session: { authorization: `Bearer ${await sessions.issue(m.ownerId)}` },
    });
  }
  return {
    live: cluster.live!,
    request,
    // The driver's own reads and writes ride out a PostgreSQL restart like the services do.
    db: (query) => retryWhileUnavailable(() => query(cluster.sql), 120_000),
    merchants,
    runId,
    ...restores,
  };
}

/** From a backup to the services' restart after its restore; `restoredAt`: the database put back. */
interface RestoreWindow {
  from: number;
  to: number;
  restoredAt?: number;
}
