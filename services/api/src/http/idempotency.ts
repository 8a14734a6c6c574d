import { createHash, randomUUID } from "node:crypto";
import { idFromBytes, retryWhileUnavailable, type Sql } from "@gateway/db";
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
  const bytes = claimDigest(kind, claim).subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * When each pool last pruned: every route mounts its own idempotency middleware, and one prune a
 * minute per replica is enough for all of them.
 */
const lastPrune = new WeakMap<Sql, number>();

/** Keys past their retention, a bounded batch at a time (each holds a whole response). */
export async function pruneIdempotencyKeys(sql: Sql, batch = 5000): Promise<number> {
  const deleted = await sql`delete from idempotency_keys where ctid in (
    select ctid from idempotency_keys
    where created_at < now() - make_interval(hours => ${RETENTION_HOURS}) limit ${batch})`;
  return deleted.count;
}

interface ExistingClaim {
  request_hash: Buffer;
  status: number | null;
  response: unknown;
}

/**
 * Claims (scope, key) for one request, identified by `token`. Claimed: this request runs, either
 * because the key is new, because its earlier claim outlived the retention, because it was left
 * unanswered by a process that died, or because this same request's earlier attempt already
 * claimed it. Otherwise the row that holds the key, if it still exists, says what to answer.
 * Safe to repeat with the same token.
 */
export async function claimKey(
  sql: Sql,
  claim: { scope: string; key: string; requestHash: Buffer; token: string },
): Promise<{ claimed: true } | { claimed: false; existing: ExistingClaim | undefined }> {
  const { scope, key, requestHash, token } = claim;
  const insert = async () =>
    (
      await sql`insert into idempotency_keys (scope, key, request_hash, claim_token)
        values (${scope}, ${key}, ${requestHash}, ${token}) on conflict do nothing returning 1`
    ).length > 0;
  // A new key, nearly every one, is claimed in one round trip. Only a key already held goes on:
  // a row past the retention is removed and the claim made again.
  if (await insert()) return { claimed: true };
  const expired = await sql`delete from idempotency_keys where scope = ${scope} and key = ${key}
    and created_at < now() - make_interval(hours => ${RETENTION_HOURS}) returning 1`;
  if (expired.length > 0 && (await insert())) return { claimed: true };
  const [existing] = await sql<(ExistingClaim & { claim_token: string | null })[]>`
    select request_hash, status, response, claim_token from idempotency_keys
    where scope = ${scope} and key = ${key}`;
  if (existing?.claim_token === token && existing.status === null) return { claimed: true };
  const takenOver = await sql`update idempotency_keys set created_at = now(), claim_token = ${token}
    where scope = ${scope} and key = ${key} and request_hash = ${requestHash} and status is null
      and created_at < now() - make_interval(secs => ${ABANDONED_SECONDS})
    returning 1`;
  if (takenOver.length > 0) return { claimed: true };
  return { claimed: false, existing };
}

/**
 * For answers that hold a secret shown once (a webhook endpoint's signing secret): `storable`
 * takes it out before the answer is kept for replay, and `replay` puts it back from where it is
 * kept sealed. The secret is never at rest in clear in `idempotency_keys`.
 */
export interface SecretAnswer {
  storable(body: unknown): unknown;
  replay(stored: unknown): Promise<unknown>;
}

/** An id of our `prefix_` form that is the same for every attempt of one idempotent request. */
export function idempotentId(prefix: string, kind: string, claim: IdempotencyClaim): string {
  return idFromBytes(prefix, claimDigest(kind, claim).subarray(0, 22));
}

/** What every id derived from one claim starts from; `kind` keeps two kinds of object apart. */
function claimDigest(kind: string, claim: IdempotencyClaim): Buffer {
  return createHash("sha256").update(`${kind}\n${claim.scope}\n${claim.key}`).digest();
}

/**
 * `Idempotency-Key` on a POST: the first response for (scope, key) is stored in PostgreSQL and
 * replayed for the same request within 24 h, on any replica; the same key with another body is a
 * 409. Server errors are not stored, so a retry after one runs the request again.
 */
export function idempotency(
  sql: Sql,
  scopeOf: (req: Request, res: Response) => string,
  secretAnswer?: SecretAnswer,
): RequestHandler {
  return async (req, res, next) => {
    const key = req.headers["idempotency-key"];
    if (key === undefined || req.method !== "POST") return next();
    // Run again after a database restart (database-rerun.ts): the claim is already this request's.
    if (idempotencyClaim(res)) return next();
    // Without this, every key ever sent would stay: a row is otherwise replaced only when its
    // key comes back after the retention. Once a minute per replica is plenty.
    if (Date.now() - (lastPrune.get(sql) ?? 0) > 60_000) {
      lastPrune.set(sql, Date.now());
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
      // The claim is repeated while the database restarts: an attempt cut off after its commit
      // left a claim with this request's token, which the next attempt recognises as its own.
      const token = randomUUID();
      const claim = await retryWhileUnavailable(() => claimKey(sql, { scope, key, requestHash, token }));
      if (!claim.claimed) {
        const { existing } = claim;
        if (!existing) throw new GatewayError("idempotency_request_in_progress");
        if (!requestHash.equals(existing.request_hash))
          throw new GatewayError("idempotency_key_reused", { param: "Idempotency-Key" });
        if (existing.status === null) throw new GatewayError("idempotency_request_in_progress");
        // Only a success holds a secret; an error is replayed as stored.
        const answer =
          secretAnswer && existing.status < 300
            ? await secretAnswer.replay(existing.response)
            : existing.response;
        res.set("Idempotent-Replayed", "true").status(existing.status).json(answer);
        return;
      }
      // Handlers that create something derive its id from this, so a retry that takes over a
      // dead process's claim finds what the first attempt already made instead of making it twice.
      res.locals.idempotency = { scope, key } satisfies IdempotencyClaim;
      const send = res.json.bind(res);
      res.json = (body: unknown) => {
        const status = res.statusCode;
        // Both are safe to repeat, so a database restart does not leave the claim unanswered
        // (every retry would then wait out the takeover delay).
        const store = retryWhileUnavailable(() =>
          status >= 500
            ? sql`delete from idempotency_keys where scope = ${scope} and key = ${key} and claim_token = ${token}`
            : sql`update idempotency_keys set status = ${status},
                  response = ${sql.json((secretAnswer && status < 300 ? secretAnswer.storable(body) : body) as never)}
                where scope = ${scope} and key = ${key} and claim_token = ${token}`,
        );
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
