import { type Bus, type RunningConsumer, startConsumer } from "@gateway/bus";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { parseSecretKey } from "@gateway/webhook-endpoints";
import { DeliveryWorker } from "./delivery-worker.js";
import { createWebhookHttpClient } from "./http-post.js";
import { createEventIngest } from "./ingest.js";
import { pruneDeliveryLog } from "./retention.js";
import { DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_RETRY_WINDOW_MS } from "./retry-schedule.js";

export interface NotifierOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  /** WEBHOOK_SECRET_KEY, base64 of 32 bytes: opens the endpoints' sealed secrets. */
  webhookSecretKey: string;
  /** ALLOW_PRIVATE_WEBHOOKS (development): lets deliveries reach loopback and private networks. */
  allowPrivateWebhooks?: boolean;
  /** Per attempt; a 2xx within it is success. Default 10 s. */
  deliveryTimeoutMs?: number;
  /** Waits after the 1st, 2nd, ... failure; the last entry repeats. Default: docs/webhooks.md's backoff. */
  retryScheduleMs?: readonly number[];
  /** No automatic retry later than this after the delivery was created. Default 3 days. */
  retryWindowMs?: number;
  /** Attempts in flight in this process. Default 256. */
  concurrency?: number;
  /** Attempts in flight to one endpoint. Default 32. */
  endpointConcurrency?: number;
  /** Fallback poll for due retries. Default 250 ms. */
  pollMs?: number;
  /** JetStream durable consumer name, shared by every replica. Default "notifier". */
  durable?: string;
  /** Finished deliveries and their attempts are deleted this long after they finished. Default 30 days. */
  deliveryLogRetentionMs?: number;
}

const PRUNE_EVERY_MS = 3_600_000;

export interface Notifier {
  start(): Promise<void>;
  /** Stops taking events and attempts, waits for attempts in flight and records them. */
  stop(): Promise<void>;
  /** Readiness: throws when the delivery loop is stuck or the event consumer is not running. */
  checkHealth(): void;
  stats(): { inFlight: number; attempted: number; succeeded: number };
}

/**
 * The notifier: a JetStream consumer that turns events into pending deliveries, and a delivery
 * worker that POSTs them. Both may run in any number of replicas against one database.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const { sql, bus, log } = options;
  const durable = options.durable ?? "notifier";
  const http = createWebhookHttpClient({ maxSocketsPerHost: options.endpointConcurrency ?? 32 });
  const worker = new DeliveryWorker({
    sql,
    log,
    http,
    secretKey: parseSecretKey(options.webhookSecretKey),
    allowPrivate: options.allowPrivateWebhooks ?? false,
    timeoutMs: options.deliveryTimeoutMs ?? 10_000,
    retrySchedule: options.retryScheduleMs?.length ? options.retryScheduleMs : DEFAULT_RETRY_SCHEDULE_MS,
    concurrency: options.concurrency ?? 256,
    endpointConcurrency: options.endpointConcurrency ?? 32,
    pollMs: options.pollMs ?? 250,
  });
  const ingest = createEventIngest({
    sql,
    log,
    retryWindowMs: options.retryWindowMs ?? DEFAULT_RETRY_WINDOW_MS,
    worker,
  });
  let consumer: RunningConsumer | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  const retentionMs = options.deliveryLogRetentionMs ?? 30 * 86_400_000;
  async function prune() {
    try {
      const deleted = await pruneDeliveryLog(sql, { olderThanMs: retentionMs });
      if (deleted > 0) log.info({ deleted }, "old webhook deliveries deleted");
    } catch (err) {
      log.warn({ err }, "pruning webhook deliveries failed");
    }
  }

  return {
    async start() {
      await worker.start();
      consumer = await startConsumer<unknown>({
        js: bus.js,
        jsm: bus.jsm,
        log,
        stream: bus.topology.streams.events,
        durable,
        filterSubjects: [bus.topology.subjects.allEvents],
        // Many messages in hand at once, so the batcher can write them in few transactions.
        concurrency: 512,
        handle: ingest.batcher(),
      });
      // Hourly, starting a minute in so that start-up stays quick.
      const schedulePrune = (delay: number) => {
        pruneTimer = setTimeout(
          () => void prune().finally(() => consumer && schedulePrune(PRUNE_EVERY_MS)),
          delay,
        );
        pruneTimer.unref();
      };
      schedulePrune(60_000);
      log.info({ durable }, "notifier started");
    },
    async stop() {
      clearTimeout(pruneTimer);
      await consumer?.stop();
      consumer = undefined;
      await worker.stop();
      http.close();
    },
    checkHealth() {
      if (!consumer) throw new Error("event consumer not running");
      worker.checkHealth();
    },
    stats: () => worker.stats(),
  };
}

/** createNotifier + start, for main.ts and in-process tests. */
export async function startNotifier(options: NotifierOptions): Promise<Notifier> {
  const notifier = createNotifier(options);
  await notifier.start();
  return notifier;
}
