// The soak's customers and merchant: test payments settled by simulation and live payments paid
// on the local chains from wallets funded ahead (customers.ts), each followed to its final
// webhook, which is checked for its signature.

import http from "node:http";
import { createTestMerchant, type TestMerchant } from "@gateway/api/testing";
import type { Sql } from "@gateway/db";
import { startWebhookReceiver, type WebhookReceiver } from "@gateway/testkit";
import { verifyWebhook } from "@gateway/webhook-signature";
import { rawRequest } from "../../fuzz/src/raw-request.js";
import type { ChainPayer } from "./customers.js";
import type { LatencyWindows } from "./latency.js";

export type Kind = "test" | "solana" | "sui";
export const KINDS: readonly Kind[] = ["test", "solana", "sui"];
type Outcome = "paid" | "overpaid" | "underpaid" | "expired";
/** Test payments cycle through every outcome, paid most often, as shops see them. */
const OUTCOMES: readonly Outcome[] = ["paid", "paid", "paid", "overpaid", "underpaid", "expired"];
const FINAL_EVENT: Record<Outcome, { event: string; status: string }> = {
  paid: { event: "payment.completed", status: "completed" },
  overpaid: { event: "payment.completed", status: "completed" },
  underpaid: { event: "payment.refunded", status: "refunded" },
  expired: { event: "payment.expired", status: "expired" },
};

interface Tracked {
  kind: Kind;
  expectedStatus: string;
  finalEvent: string;
  /** When the customer's part was done: simulation accepted, transfer accepted by Solana's RPC or executed on Sui. */
  paidAt?: number;
  finishedAt?: number;
  finished?: () => void;
}

export interface LoadCounters {
  started: Record<Kind, number>;
  finished: Record<Kind, number>;
  /** A request or a chain transfer that failed; the payment is abandoned and counted here. */
  failed: Record<Kind, number>;
  /** Non-2xx answers by "operation status". */
  httpErrors: Record<string, number>;
  webhooks: number;
  duplicateWebhooks: number;
  badSignatures: number;
  failureSamples: string[];
}

export interface SoakLoad {
  merchant: TestMerchant;
  counters: LoadCounters;
  /** Starts one payment of this kind; resolves when its final webhook arrived (or it failed). */
  run(kind: Kind): Promise<void>;
  inFlight(): number;
  /** Payments that are not finished, by id. */
  unfinished(): { id: string; kind: Kind; expectedStatus: string }[];
  expected(): Map<string, string>;
  receivedEventIds(): Set<string>;
  close(): Promise<void>;
}

const zero = (): Record<Kind, number> => ({ test: 0, solana: 0, sui: 0 });

export async function createSoakLoad(options: {
  apiUrl: string;
  sql: Sql;
  latency: LatencyWindows;
  payers: { solana: ChainPayer; sui: ChainPayer };
  /** Resolves once the Solana watcher has registered the address with the provider. */
  solanaRegistered(address: string): Promise<void>;
  finishTimeoutMs?: number;
}): Promise<SoakLoad> {
  const { apiUrl, latency, payers } = options;
  const finishTimeoutMs = options.finishTimeoutMs ?? 180_000;
  const merchant = await createTestMerchant(options.sql, "Soak Shop");
  const tracked = new Map<string, Tracked>();
  const events = new Set<string>();
  const counters: LoadCounters = {
    started: zero(),
    finished: zero(),
    failed: zero(),
    httpErrors: {},
    webhooks: 0,
    duplicateWebhooks: 0,
    badSignatures: 0,
    failureSamples: [],
  };
  const secrets: Record<string, string> = {};
  let running = 0;
  let outcomeIndex = 0;

  const receiver: WebhookReceiver = await startWebhookReceiver(
    (request) => {
      const mode = request.path.endsWith("/live") ? "live" : "test";
      let event: { id: string; type: string; data: { payment?: { id: string } } };
      try {
        event = verifyWebhook({
          payload: request.body,
          header: request.headers["x-gateway-signature"],
          secret: secrets[mode] ?? "",
        }) as typeof event;
      } catch {
        counters.badSignatures++;
        return { status: 400 };
      }
      counters.webhooks++;
      if (events.has(event.id)) counters.duplicateWebhooks++;
      events.add(event.id);
      const payment = event.data.payment ? tracked.get(event.data.payment.id) : undefined;
      if (payment && event.type === payment.finalEvent && payment.finishedAt === undefined) {
        payment.finishedAt = request.receivedAt;
        if (payment.paidAt !== undefined)
          latency.record(`${payment.kind}: paid → final webhook`, payment.finishedAt - payment.paidAt);
        payment.finished?.();
      }
      return { status: 200 };
    },
    { record: false },
  );

  // Kept-alive node:http: fetch costs the driver about 0.4 ms of CPU a request, node:http under
  // 0.05 ms, and the driver shares the cores with the cluster it measures. Idle connections are
  // left after 30 s, before the API's keep-alive (65 s) ends them: a burst that reached for a
  // connection the API was closing at that moment failed with "socket hang up" (10 Sui payments
  // of a 15-minute soak, 2026-11-28, where each refill of the Sui payer let a burst through).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });
  async function api(operation: string, method: string, path: string, key: string | null, body?: unknown) {
    const started = performance.now();
    const { status, text } = await rawRequest(
      apiUrl,
      method,
      path,
      {
        ...(key ? { "x-api-key": key } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body === undefined ? undefined : JSON.stringify(body),
      agent,
    );
    latency.record(operation, performance.now() - started);
    if (status < 200 || status >= 300) {
      const name = `${operation} ${status}`;
      counters.httpErrors[name] = (counters.httpErrors[name] ?? 0) + 1;
      throw new Error(`${method} ${path}: ${status} ${text.slice(0, 300)}`);
    }
    return JSON.parse(text) as Record<string, unknown>;
  }

  for (const mode of ["test", "live"] as const) {
    const created = await api(
      "POST /webhooks",
      "POST",
      "/webhooks",
      mode === "test" ? merchant.testKey : merchant.liveKey,
      {
        url: `${receiver.url}/${mode}`,
        is_test: mode === "test",
      },
    );
    secrets[mode] = String(created.secret);
  }

  function follow(id: string, entry: Tracked): Promise<void> {
    tracked.set(id, entry);
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${entry.finalEvent} for ${id} within ${finishTimeoutMs} ms`)),
        finishTimeoutMs,
      );
      entry.finished = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    // Awaited only once the customer has paid; a step failing before that must not leave an
    // unhandled rejection behind.
    done.catch(() => {});
    return done;
  }

  async function runTest() {
    const outcome = OUTCOMES[outcomeIndex++ % OUTCOMES.length]!;
    const payment = await api("POST /payments (test)", "POST", "/payments", merchant.testKey, {
      amount: "10.00",
      currency: "USD",
    });
    const id = String(payment.id);
    const done = follow(id, {
      kind: "test",
      expectedStatus: FINAL_EVENT[outcome].status,
      finalEvent: FINAL_EVENT[outcome].event,
    });
    await api("POST simulate", "POST", `/payments/checkout/${id}/simulate`, null, { outcome });
    tracked.get(id)!.paidAt = Date.now();
    await done;
  }

  async function runLive(chain: "solana" | "sui") {
    const payment = await api(`POST /payments (live)`, "POST", "/payments", merchant.liveKey, {
      amount: "1.00",
      currency: "USD",
    });
    const id = String(payment.id);
    const wallet = await api(
      "POST generate-wallet",
      "POST",
      `/payments/checkout/${id}/generate-wallet`,
      null,
      {
        chain,
        coin: "USDC",
      },
    );
    const address = String(wallet.address);
    const baseUnits = toBaseUnits(String(wallet.amount), 6);
    const done = follow(id, { kind: chain, expectedStatus: "completed", finalEvent: "payment.completed" });
    if (chain === "solana") {
      const waitStart = performance.now();
      await options.solanaRegistered(address);
      latency.record("solana: wallet → provider registered", performance.now() - waitStart);
    }
    const sendStart = performance.now();
    await payers[chain].pay(address, baseUnits);
    // Solana's pay ends when the RPC accepted the transaction, Sui's once it executed (after a
    // wait for a funded wallet when the reserve ran dry).
    latency.record(
      chain === "solana" ? "solana: transfer accepted" : "sui: transfer executed",
      performance.now() - sendStart,
    );
    tracked.get(id)!.paidAt = Date.now();
    await done;
  }

  return {
    merchant,
    counters,
    async run(kind) {
      counters.started[kind]++;
      running++;
      try {
        if (kind === "test") await runTest();
        else await runLive(kind);
        counters.finished[kind]++;
      } catch (err) {
        counters.failed[kind]++;
        if (counters.failureSamples.length < 20)
          counters.failureSamples.push(`${kind}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        running--;
      }
    },
    inFlight: () => running,
    // A payment whose customer never paid (a failed step, counted in `failed`) is not expected to finish.
    unfinished: () =>
      [...tracked]
        .filter(([, entry]) => entry.paidAt !== undefined && entry.finishedAt === undefined)
        .map(([id, entry]) => ({ id, kind: entry.kind, expectedStatus: entry.expectedStatus })),
    expected: () =>
      new Map(
        [...tracked]
          .filter(([, entry]) => entry.paidAt !== undefined)
          .map(([id, entry]) => [id, entry.expectedStatus]),
      ),
    receivedEventIds: () => events,
    close: async () => {
      agent.destroy();
      await receiver.close();
    },
  };
}

export function toBaseUnits(decimal: string, decimals: number): bigint {
  const [whole = "0", fraction = ""] = decimal.split(".");
  if (fraction.length > decimals) throw new Error(`${decimal} has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}
