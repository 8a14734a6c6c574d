import type { Logger } from "@gateway/logging";
import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { MESSAGE_ID_HEADER } from "./message-id.js";

export interface BusMessage<T = unknown> {
  /** The message's id without the bus epoch (message-id.ts); consumers de-duplicate on it. */
  id: string;
  subject: string;
  data: T;
  /** 1 on first delivery. */
  deliveryCount: number;
  /** The message's sequence number in its stream: always set by startConsumer (messages made by hand in tests may lack it). */
  seq?: number;
}

/**
 * Thrown by a handler for a message that is not to be handled yet (not a failure): it comes back
 * after `delayMs`, without a warning in the log. Its next delivery still counts as one.
 */
export class RetryLater extends Error {
  override readonly name = "RetryLater";
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
  }
}

export interface ConsumerOptions<T> {
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: Logger;
  stream: string;
  /** Durable name: replicas with the same name share the work. */
  durable: string;
  filterSubjects: string[];
  handle: (message: BusMessage<T>) => Promise<void>;
  /** Messages handled at once by this process. */
  concurrency?: number;
  /** How long a message may be in hand before JetStream redelivers it. */
  ackWaitMs?: number;
  /** Delay before a failed message is offered again, growing per attempt. */
  retryDelayMs?: (deliveryCount: number) => number;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

const defaultRetryDelay = (n: number) => Math.min(100 * 2 ** (n - 1), 30_000);

/**
 * A durable pull consumer with explicit acks. A handler that throws gets its message back after
 * a growing delay; a handler must be idempotent (see `handleOnce`), since anything not acked
 * before a crash is delivered again.
 */
export async function startConsumer<T>(options: ConsumerOptions<T>): Promise<RunningConsumer> {
  const { js, stream, durable } = options;
  const concurrency = options.concurrency ?? 16;
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  await ensureDurable(options, concurrency, ackWaitMs);
  const consumer = await js.consumers.get(stream, durable);
  const handling: Handling<T> = {
    ...options,
    ackWaitMs,
    retryDelay: options.retryDelayMs ?? defaultRetryDelay,
  };

  const inFlight = new Set<Promise<void>>();
  // Messages received while every slot is taken, kept alive with `working()`: JetStream's ack timer
  // runs from delivery, so one waiting past `ackWaitMs` would be delivered again and run twice. A
  // message in a handler is not kept alive, so a hung handler still gives it up after `ackWaitMs`.
  const waiting: JsMsg[] = [];
  let stopping = false;
  function start(msg: JsMsg) {
    const task = handleMessage(handling, msg).finally(() => {
      inFlight.delete(task);
      const next = stopping ? undefined : waiting.shift();
      if (next) start(next);
    });
    inFlight.add(task);
  }
  const heartbeat = setInterval(() => {
    for (const msg of waiting) msg.working();
  }, ackWaitMs / 3);
  heartbeat.unref();

  // Short pull expiry: a pull request that went to a NATS node that died is noticed (missed
  // heartbeats at half the expiry) and re-sent within seconds, not the default half minute.
  // A callback, not the iterator: the iterator's buffer (which the client refills as soon as
  // messages arrive, up to the durable's `max_ack_pending`) cannot be reached to keep alive.
  const messages = await consumer.consume({
    max_messages: concurrency,
    expires: 5_000,
    callback: (msg) => {
      if (stopping) return;
      if (inFlight.size < concurrency) start(msg);
      else waiting.push(msg);
    },
  });

  return {
    async stop() {
      stopping = true;
      clearInterval(heartbeat);
      await messages.close();
      // Never started: JetStream offers them again after their ack wait. (A nak here would not
      // be faster on nats-server 2.9: it hands a nak'd message to this closed consumer's pull
      // request, still open on the server until it expires.)
      waiting.length = 0;
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Creates the durable, or brings an existing one to these settings. */
async function ensureDurable<T>(options: ConsumerOptions<T>, concurrency: number, ackWaitMs: number) {
  const { jsm, stream, durable, filterSubjects } = options;
  const settings = {
    ack_wait: ackWaitMs * 1_000_000,
    max_ack_pending: Math.max(concurrency * 4, 256),
    ...(filterSubjects.length === 1
      ? { filter_subject: filterSubjects[0] }
      : { filter_subjects: filterSubjects }),
  };
  // A durable that exists keeps where it started (JetStream refuses to change that; another
  // replica, an earlier version or a handover chose it); the rest is brought to this config.
  const keepStart = () => jsm.consumers.update(stream, durable, settings);
  if (await exists(jsm, stream, durable)) {
    await keepStart();
    return;
  }
  try {
    await jsm.consumers.add(stream, {
      ...settings,
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
  } catch (err) {
    // Created by another replica meanwhile (with another start, "can not be updated").
    if (!/already|can not be updated/.test(String(err))) throw err;
    await keepStart();
  }
}

interface Handling<T> extends ConsumerOptions<T> {
  ackWaitMs: number;
  retryDelay: (deliveryCount: number) => number;
}

async function handleMessage<T>(options: Handling<T>, msg: JsMsg) {
  const { log, stream, handle, ackWaitMs, retryDelay } = options;
  const id = msg.headers?.get(MESSAGE_ID_HEADER) || msg.headers?.get("Nats-Msg-Id") || `${stream}:${msg.seq}`;
  const deliveryCount = msg.info.deliveryCount;
  let data: T;
  try {
    data = msg.json<T>();
  } catch (err) {
    // A message that is not JSON will never be: retrying it would block nothing but waste
    // work forever. Terminate it and leave the evidence in the log.
    log.error({ err, messageId: id, subject: msg.subject }, "message is not JSON; dropped");
    // No reason text: nats-server 2.9 ignores "+TERM <reason>".
    msg.term();
    return;
  }
  // A handler still running when its ack wait ends has lost its message to another delivery
  // and keeps its slot until it ends: said once, so a hung one (a promise that never settles)
  // shows in the log instead of as a consumer that quietly runs out of slots.
  const stalled = setTimeout(() => {
    log.warn(
      { messageId: id, subject: msg.subject, deliveryCount, ackWaitMs },
      "message handler still running after its ack wait; the message is delivered again",
    );
  }, ackWaitMs);
  stalled.unref();
  try {
    await handle({ id, subject: msg.subject, data, deliveryCount, seq: msg.seq });
    msg.ack();
  } catch (err) {
    if (err instanceof RetryLater) {
      log.debug({ messageId: id, subject: msg.subject, reason: err.message }, "message held back");
      msg.nak(err.delayMs);
      return;
    }
    log.warn(
      { err, messageId: id, subject: msg.subject, deliveryCount },
      "message handling failed; will retry",
    );
    msg.nak(retryDelay(deliveryCount));
  } finally {
    clearTimeout(stalled);
  }
}

async function exists(jsm: JetStreamManager, stream: string, name: string): Promise<boolean> {
  try {
    await jsm.consumers.info(stream, name);
    return true;
  } catch (err) {
    if (/consumer not found/i.test(String(err))) return false;
    throw err;
  }
}
