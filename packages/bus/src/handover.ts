// Replacing one durable consumer by several (settlement's chain work, split per chain) without
// losing, repeating or overlapping the work the old one had under way. docs/operations.md,
// "Settlement's consumers", describes what operators see.
import type { Logger } from "@gateway/logging";
import { AckPolicy, type ConsumerInfo, DeliverPolicy, type JetStreamManager } from "@nats-io/jetstream";

/** Messages up to stream seq `through` are not to be handled before `until` (epoch ms). */
export interface HandoverHold {
  through: number;
  until: number;
}

export interface HandoverOptions {
  stream: string;
  /** The durable being replaced. */
  from: string;
  /** The durables replacing it; each gets every message `from` had left (its consumer decides which are its own). */
  to: string[];
  /** The new durables' filter subject. */
  subject: string;
}

// The handover's state lives in each new durable's description, which `nats consumer info` shows
// and every replica reads (nats-server 2.9 has no consumer metadata).
const pendingText = (from: string, start: number, ackWaitMs: number) =>
  `handover from ${from}: started at stream seq ${start}; its ack wait ${ackWaitMs} ms; hold not set yet`;
const PENDING = /^handover from \S+: started at stream seq (\d+); its ack wait (\d+) ms; hold not set yet$/;
const heldText = (from: string, start: number, hold: HandoverHold) =>
  `handover from ${from}: started at stream seq ${start}; seq <= ${hold.through} held until ${new Date(hold.until).toISOString()}`;
const HELD = /^handover from \S+: started at stream seq \d+; seq <= (\d+) held until (\S+)$/;

/**
 * Moves the work of durable `from` to the durables `to`, safely from any number of replicas at
 * once, and returns the hold of each new durable that came from a handover (absent: none):
 *
 * 1. While `from` exists, each missing durable of `to` is created to start at `from`'s ack
 *    floor + 1. Everything at or below the floor was acknowledged, so handled; what lies above it
 *    (unacknowledged, or acknowledged out of order) is delivered again, and handlers must find
 *    what they handled before on record and do nothing. Replicas that read the floor at different
 *    moments create at different starts; the first creation stands, and any of them is safe.
 * 2. Then `from` is deleted, so replicas of the previous version still running (a rolling update)
 *    receive nothing more from it and only finish what they hold.
 * 3. What they hold must not also run here meanwhile. Every message `from` can have handed out is
 *    at or below the stream's last sequence once it is gone; the hold asks that those wait until
 *    `from`'s ack wait has run from then, the time after which JetStream itself would have given
 *    them to another replica. The first replica here after the deletion writes the hold into the
 *    new durable; another that writes its own only makes it later.
 *
 * A crash between the steps leaves what the next start finishes: new durables created but `from`
 * not deleted (deleted then), or deleted but the hold not written (written then, from that later
 * moment). If `from` exists again after a handover (a replica of the previous version restarted
 * during the rolling update and made it again, from the stream's start, or a rollback ran it),
 * the new durables keep their places and a new hold is set for what it handed out; replicas
 * already running keep the hold they read when they started. With neither `from` nor a durable
 * of `to` (a new install, or one added later), nothing is done here: the consumer creates it
 * from the stream's start.
 */
export async function handOverDurable(
  jsm: JetStreamManager,
  log: Logger,
  { stream, from, to, subject }: HandoverOptions,
): Promise<Map<string, HandoverHold>> {
  const old = await consumerInfo(jsm, stream, from);
  if (old) {
    const start = old.ack_floor.stream_seq + 1;
    // JetStream's default when the durable was made without one: 30 s.
    const ackWaitNs = old.config.ack_wait ?? 30_000_000_000;
    const ackWaitMs = Math.ceil(ackWaitNs / 1_000_000);
    for (const name of to) {
      const existing = await consumerInfo(jsm, stream, name);
      if (existing) {
        // Handed over before, and `from` is back: made again by a replica of the previous
        // version that restarted during the rolling update, or by a rollback. The new durable
        // keeps its place (what it finds handled it skips), and what `from` handed out since
        // waits again.
        const at = existing.config.opt_start_seq ?? 1;
        await jsm.consumers.update(stream, name, { description: pendingText(from, at, ackWaitMs) });
        log.warn({ consumer: name, from }, "the consumer handed over exists again; handing over again");
        continue;
      }
      try {
        await jsm.consumers.add(stream, {
          durable_name: name,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: start,
          filter_subject: subject,
          ack_wait: ackWaitNs,
          description: pendingText(from, start, ackWaitMs),
        });
        log.info(
          { consumer: name, from, startSeq: start },
          "consumer created where the one it replaces left off",
        );
      } catch (err) {
        // Another replica created it meanwhile, perhaps at another start.
        if (!/already|can not be updated/.test(String(err))) throw err;
      }
    }
    try {
      await jsm.consumers.delete(stream, from);
      log.info(
        { consumer: from, ackFloor: old.ack_floor.stream_seq, to },
        "consumer handed over and deleted",
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  const holds = new Map<string, HandoverHold>();
  for (const name of to) {
    const info = await consumerInfo(jsm, stream, name);
    let description = info?.config.description ?? "";
    const pending = PENDING.exec(description);
    if (pending) {
      // `from` is gone (deleted above, here or by another replica, before this line).
      const hold = {
        through: (await jsm.streams.info(stream)).state.last_seq,
        until: Date.now() + Number(pending[2]),
      };
      description = heldText(from, Number(pending[1]), hold);
      await jsm.consumers.update(stream, name, { description });
    }
    const held = HELD.exec(description);
    if (held) {
      const hold = { through: Number(held[1]), until: Date.parse(held[2]!) };
      if (hold.until > Date.now()) {
        log.info({ consumer: name, ...hold }, "handed-over messages wait for the old consumer's ack wait");
      }
      holds.set(name, hold);
    }
  }
  return holds;
}

async function consumerInfo(
  jsm: JetStreamManager,
  stream: string,
  name: string,
): Promise<ConsumerInfo | null> {
  try {
    return await jsm.consumers.info(stream, name);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

const isNotFound = (err: unknown) => /consumer not found/i.test(String(err));
