// Message ids on the bus: what a message is, and what consumers record as handled. JetStream's
// duplicate check sees the id behind the database's bus epoch, so what a restore un-happened gets
// through when published again (docs/operations.md, "Restoring PostgreSQL from a backup").
import type { Sql } from "@gateway/db";
import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";

/** The header carrying the id without the epoch; consumers read it first. */
export const MESSAGE_ID_HEADER = "Gateway-Msg-Id";

/** The database's current bus epoch ("" until the first restore). */
export async function readBusEpoch(sql: Sql): Promise<string> {
  const [row] = await sql<{ epoch: string }[]>`select epoch from bus_epoch`;
  return row?.epoch ?? "";
}

/**
 * The epoch as a publisher that does not read the outbox sees it: read again at most every
 * `ttlMs`. Services are restarted after a restore (the runbook), so this only narrows the window
 * of a service the operator forgot to stop.
 */
export function busEpochReader(sql: Sql, ttlMs = 5_000): () => Promise<string> {
  let cached: { epoch: string; at: number } | undefined;
  return async () => {
    if (!cached || Date.now() - cached.at > ttlMs)
      cached = { epoch: await readBusEpoch(sql), at: Date.now() };
    return cached.epoch;
  };
}

/** Publishes with JetStream de-duplication on `<epoch>:<id>` (or `id` in epoch "") and the bare id in a header. */
export function publishWithId(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  id: string,
  epoch: string,
  timeout = 5_000,
): Promise<PubAck> {
  const h = headers();
  h.set(MESSAGE_ID_HEADER, id);
  return js.publish(subject, JSON.stringify(payload), {
    msgID: epoch === "" ? id : `${epoch}:${id}`,
    headers: h,
    timeout,
  });
}
