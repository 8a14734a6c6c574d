// Provider webhooks as Helius runs them: webhooks registered through its `/v0/webhooks`
// API, enhanced-transaction payloads posted at `confirmed` with the static auth header,
// failed deliveries retried 3 times a minute apart. Tests can make the next deliveries
// vanish or arrive twice, which real providers do now and then.

import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { Chain, TransactionRecord } from "./chain.js";
import { type EnhancedTransaction, enhanceTransaction, touchedAddresses } from "./enhanced-transaction.js";

export interface Webhook {
  webhookID: string;
  wallet: string;
  webhookURL: string;
  transactionTypes: string[];
  accountAddresses: string[];
  webhookType: "enhanced";
  authHeader?: string;
  txnStatus: "all" | "success" | "failed";
}

export interface DeliveryLogEntry {
  readonly webhookID: string;
  readonly signature: string;
  /** 1 for the first try, up to 1 + retries. */
  readonly attempt: number;
  readonly outcome: "delivered" | "failed" | "dropped";
  readonly status: number | null;
  readonly duplicate: boolean;
  readonly at: number;
}

export interface WebhookControls {
  drop: number;
  duplicate: number;
}

export interface Webhooks {
  create(input: unknown): Webhook;
  get(id: string): Webhook | undefined;
  list(): Webhook[];
  update(id: string, input: unknown): Webhook | undefined;
  remove(id: string): boolean;
  /** Drops or duplicates the next n deliveries (added to what is already pending). */
  control(input: { drop?: number; duplicate?: number }): WebhookControls;
  controls(): WebhookControls;
  deliveries(): readonly DeliveryLogEntry[];
  /** Resolves when no delivery or retry is in flight. */
  idle(): Promise<void>;
  close(): void;
}

export class WebhookInputError extends Error {
  override readonly name = "WebhookInputError";
}

export interface WebhooksOptions {
  readonly chain: Chain;
  readonly retries?: number;
  readonly retryDelayMs?: number;
  readonly timeoutMs?: number;
}

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) {
    throw new WebhookInputError(`${field} must be an array of strings`);
  }
  return value as string[];
}

function validate(input: unknown, base: Webhook | null): Omit<Webhook, "webhookID" | "wallet"> {
  if (typeof input !== "object" || input === null) throw new WebhookInputError("body must be a JSON object");
  const body = input as Record<string, unknown>;
  const webhookURL = body["webhookURL"] ?? base?.webhookURL;
  if (typeof webhookURL !== "string" || !/^https?:\/\//.test(webhookURL)) {
    throw new WebhookInputError("webhookURL must be an http(s) URL");
  }
  const webhookType = body["webhookType"] ?? base?.webhookType ?? "enhanced";
  if (webhookType !== "enhanced")
    throw new WebhookInputError('only webhookType "enhanced" is supported here');
  const accountAddresses = stringList(
    body["accountAddresses"] ?? base?.accountAddresses ?? [],
    "accountAddresses",
  );
  // A shape check, not a full base-58 decode: a watcher PUTs its whole address list (up to
  // 100,000) on every change, and decoding them all took seconds.
  for (const entry of accountAddresses) {
    if (!BASE58_ADDRESS.test(entry)) throw new WebhookInputError(`invalid account address ${entry}`);
  }
  if (accountAddresses.length > 100_000) throw new WebhookInputError("at most 100,000 accountAddresses");
  const transactionTypes = stringList(
    body["transactionTypes"] ?? base?.transactionTypes ?? ["ANY"],
    "transactionTypes",
  );
  const authHeader = body["authHeader"] ?? base?.authHeader;
  if (authHeader !== undefined && typeof authHeader !== "string") {
    throw new WebhookInputError("authHeader must be a string");
  }
  const txnStatus = body["txnStatus"] ?? base?.txnStatus ?? "all";
  if (txnStatus !== "all" && txnStatus !== "success" && txnStatus !== "failed") {
    throw new WebhookInputError("txnStatus must be all, success or failed");
  }
  return {
    webhookURL,
    transactionTypes,
    accountAddresses,
    webhookType,
    txnStatus,
    ...(authHeader === undefined ? {} : { authHeader }),
  };
}

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const hooks = new Map<string, Webhook>();
  // Each webhook's addresses as a set: matching a transaction costs its account count
  // times the (few) webhooks, and replacing 100,000 addresses is one Set construction.
  const addressSets = new Map<string, Set<string>>();
  const log: DeliveryLogEntry[] = [];
  const controls: WebhookControls = { drop: 0, duplicate: 0 };
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  function index(hook: Webhook): void {
    addressSets.set(hook.webhookID, new Set(hook.accountAddresses));
  }

  function settle(): void {
    if (inFlight === 0 && timers.size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  // node:http with kept-alive connections, not Node's fetch: a payment's webhook is one of the
  // local network's costs on the cores the pipeline bench shares with the cluster it measures,
  // and undici's fetch was a seventh of this process's time under live load (docs/solana-localnet.md).
  // With a timeout of their own, the agents leave an idle connection a second before the server's
  // announced keep-alive (`Keep-Alive: timeout=N`) runs out: Node 20 ignores the hint otherwise,
  // and a delivery sent on a connection the server is closing fails and waits out the retry
  // delay (packages/chain-kit/src/keep-alive-fetch.ts has the same for RPC calls).
  const agents = {
    "http:": new http.Agent({ keepAlive: true, timeout: 30_000 }),
    "https:": new https.Agent({ keepAlive: true, timeout: 30_000 }),
  };
  /** The answer's status, or null when none came within `timeoutMs` (or the URL is unusable). */
  function post(hook: Webhook, payload: EnhancedTransaction[]): Promise<number | null> {
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL(hook.webhookURL);
      } catch {
        return resolve(null);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return resolve(null);
      const body = JSON.stringify(payload);
      let done = false;
      const finish = (status: number | null) => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        resolve(status);
      };
      const request = (url.protocol === "https:" ? https : http).request(
        url,
        {
          method: "POST",
          agent: agents[url.protocol],
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            ...(hook.authHeader === undefined ? {} : { authorization: hook.authHeader }),
          },
        },
        (response) => {
          response.resume();
          response.on("end", () => finish(response.statusCode ?? null));
          response.on("error", () => finish(null));
        },
      );
      // The whole exchange within the timeout, as AbortSignal.timeout bounded the fetch.
      const deadline = setTimeout(() => {
        request.destroy();
        finish(null);
      }, timeoutMs);
      request.on("error", () => finish(null));
      request.end(body);
    });
  }

  function attempt(
    hook: Webhook,
    payload: EnhancedTransaction[],
    tryNumber: number,
    duplicate: boolean,
  ): void {
    if (closed) return;
    inFlight += 1;
    void post(hook, payload).then((status) => {
      inFlight -= 1;
      const ok = status !== null && status >= 200 && status < 300;
      const signature = payload[0]?.signature ?? "";
      log.push({
        webhookID: hook.webhookID,
        signature,
        attempt: tryNumber,
        outcome: ok ? "delivered" : "failed",
        status,
        duplicate,
        at: Date.now(),
      });
      if (!ok && tryNumber <= retries && !closed) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          const current = hooks.get(hook.webhookID);
          if (current) attempt(current, payload, tryNumber + 1, duplicate);
          settle();
        }, retryDelayMs);
        timers.add(timer);
      }
      settle();
    });
  }

  function deliver(hook: Webhook, payload: EnhancedTransaction[]): void {
    if (controls.drop > 0) {
      controls.drop -= 1;
      log.push({
        webhookID: hook.webhookID,
        signature: payload[0]?.signature ?? "",
        attempt: 1,
        outcome: "dropped",
        status: null,
        duplicate: false,
        at: Date.now(),
      });
      return;
    }
    attempt(hook, payload, 1, false);
    if (controls.duplicate > 0) {
      controls.duplicate -= 1;
      attempt(hook, payload, 1, true);
    }
  }

  function onTransaction(record: TransactionRecord): void {
    const touched = touchedAddresses(record);
    const ids: string[] = [];
    for (const [id, addresses] of addressSets) {
      for (const entry of touched) {
        if (addresses.has(entry)) {
          ids.push(id);
          break;
        }
      }
    }
    if (ids.length === 0) return;
    const enhanced = enhanceTransaction(record);
    for (const id of ids) {
      const hook = hooks.get(id);
      if (!hook) continue;
      if (hook.txnStatus === "success" && record.err !== null) continue;
      if (hook.txnStatus === "failed" && record.err === null) continue;
      const types = hook.transactionTypes.map((type) => type.toUpperCase());
      if (!types.includes("ANY") && !types.includes(enhanced.type)) continue;
      deliver(hook, [enhanced]);
    }
  }

  const off = options.chain.on("transaction", onTransaction);

  return {
    create(input) {
      const fields = validate(input, null);
      const hook: Webhook = { webhookID: randomUUID(), wallet: "", ...fields };
      hooks.set(hook.webhookID, hook);
      index(hook);
      return hook;
    },
    get: (id) => hooks.get(id),
    list: () => [...hooks.values()],
    update(id, input) {
      const current = hooks.get(id);
      if (!current) return undefined;
      const next: Webhook = { webhookID: id, wallet: current.wallet, ...validate(input, current) };
      hooks.set(id, next);
      index(next);
      return next;
    },
    remove(id) {
      const current = hooks.get(id);
      if (!current) return false;
      addressSets.delete(id);
      hooks.delete(id);
      return true;
    },
    control(input) {
      for (const field of ["drop", "duplicate"] as const) {
        const value = input[field];
        if (value === undefined) continue;
        if (!Number.isInteger(value) || value < 0) throw new WebhookInputError(`${field} must be a count`);
        controls[field] += value;
      }
      return { ...controls };
    },
    controls: () => ({ ...controls }),
    deliveries: () => log,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      }),
    close() {
      closed = true;
      off();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      agents["http:"].destroy();
      agents["https:"].destroy();
      settle();
    },
  };
}
