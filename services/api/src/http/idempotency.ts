import { createHash } from "node:crypto";
import type { Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request, RequestHandler, Response } from "express";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const RETENTION_HOURS = 24;
/** A claim still unanswered after this long belongs to a process that died: a retry takes it over. */
const ABANDONED_SECONDS = 60;

export interface IdempotencyClaim {
  scope: string;
  key: string;
}

/** The claim this request runs under, when it carries an Idempotency-Key. */
export function idempotencyClaim(res: Response): IdempotencyClaim | undefined {
  return res.locals.idempotency as IdempotencyClaim | undefined;
}

/**
 * A UUID (version 8, name-based) that is the same for every attempt of one idempotent request:
 * `kind` names what is being created, so two kinds of object never share an id.
 */
export function idempotentUuid(kind: string, claim: IdempotencyClaim): string {
  const bytes = createHash("sha256").update(`${kind}\n${claim.scope}\n${claim.key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `Idempotency-Key` on a POST: the first response for (scope, key) is stored in PostgreSQL and
 * replayed for the same request within 24 h, on any replica; the same key with another body is a
 * 409. Server errors are not stored, so a retry after one runs the request again.
 */
/** Keys past their retention, a bounded batch at a time (each holds a whole response). */
export async function pruneIdempotencyKeys(sql: Sql, batch = 5000): Promise<number> {
  const deleted = await sql`delete from idempotency_keys where ctid in (
    select ctid from idempotency_keys
    where created_at < now() - make_interval(hours => ${RETENTION_HOURS}) limit ${batch})`;
  return deleted.count;
}

export function idempotency(sql: Sql, scopeOf: (req: Request, res: Response) => string): RequestHandler {
  let lastPrune = 0;
  return async (req, res, next) => {
    const key = req.headers["idempotency-key"];
    if (key === undefined || req.method !== "POST") return next();
    // Without this, every key ever sent would stay: a row is otherwise replaced only when its
    // key comes back after the retention. Once a minute per replica is plenty.
    if (Date.now() - lastPrune > 60_000) {
      lastPrune = Date.now();
      pruneIdempotencyKeys(sql).catch(() => {});
    }
    try {
      if (Array.isArray(key) || !KEY_PATTERN.test(key)) {
        throw new GatewayError("idempotency_key_invalid", { param: "Idempotency-Key" });
      }
      const scope = scopeOf(req, res);
      const requestHash = createHash("sha256")
        .update(`${req.method} ${req.baseUrl}${req.path}\n${JSON.stringify(req.body ?? {})}`)
        .digest();
      await sql`delete from idempotency_keys where scope = ${scope} and key = ${key}
        and created_at < now() - make_interval(hours => ${RETENTION_HOURS})`;
      let claimed = await sql`insert into idempotency_keys (scope, key, request_hash)
        values (${scope}, ${key}, ${requestHash}) on conflict do nothing returning 1`;
      if (claimed.length === 0) {
        claimed = await sql`update idempotency_keys set created_at = now()
          where scope = ${scope} and key = ${key} and request_hash = ${requestHash} and status is null
            and created_at < now() - make_interval(secs => ${ABANDONED_SECONDS})
          returning 1`;
      }
      if (claimed.length === 0) {
        const [existing] = await sql<{ request_hash: Buffer; status: number | null; response: unknown }[]>`
          select request_hash, status, response from idempotency_keys where scope = ${scope} and key = ${key}`;
        if (!existing) throw new GatewayError("idempotency_request_in_progress");
        if (!requestHash.equals(existing.request_hash))
          throw new GatewayError("idempotency_key_reused", { param: "Idempotency-Key" });
        if (existing.status === null) throw new GatewayError("idempotency_request_in_progress");
        res.set("Idempotent-Replayed", "true").status(existing.status).json(existing.response);
        return;
      }
      // Handlers that create something derive its id from this, so a retry that takes over a
      // dead process's claim finds what the first attempt already made instead of making it twice.
      res.locals.idempotency = { scope, key } satisfies IdempotencyClaim;
      const send = res.json.bind(res);
      res.json = (body: unknown) => {
        const status = res.statusCode;
        const store =
          status >= 500
            ? sql`delete from idempotency_keys where scope = ${scope} and key = ${key}`
            : sql`update idempotency_keys set status = ${status}, response = ${sql.json(body as never)}
                where scope = ${scope} and key = ${key}`;
        // Reply only once the record is durable, so a replay can never contradict this answer.
        store.then(
          () => send(body),
          () => send(body),
        );
        return res;
      };
      next();
    } catch (err) {
      next(err);
    }
  };
}
