import { retryWhileUnavailable, type Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request, RequestHandler } from "express";
import { batched } from "./batched.js";

export interface RateLimiter {
  /** Counts one hit for `bucket`; returns the seconds to wait when over the limit, else 0. */
  hit(bucket: string, limit: number, windowSeconds?: number): Promise<number>;
}

interface Hit {
  bucket: string;
  windowStartMs: number;
  windowEndMs: number;
  limit: number;
}

/** Places in a bucket's window this replica has counted in PostgreSQL and not yet handed out. */
interface Lease {
  windowStartMs: number;
  windowEndMs: number;
  /** The next place to hand out, and the last one under the limit. */
  next: number;
  last: number;
  /** How many places it was taken with beyond its own hits: the next lease takes twice as many. */
  ahead: number;
}

/**
 * How many hits a replica may count ahead of its requests: 1 % of the limit, at most 256, and
 * none for a budget under 200 (every budget but a raised global one), counted one hit at a time.
 */
export function leaseCap(limit: number): number {
  return limit < 200 ? 0 : Math.min(256, Math.floor(limit / 100));
}

/**
 * Fixed windows counted in PostgreSQL, so every API replica sees the same count. The hits that
 * arrive while an upsert is in flight go together in the next one, one row per bucket incremented
 * by its number of hits, each hit getting its own place in the count in arrival order. Old
 * windows are pruned now and then by whoever passes by.
 *
 * A bucket hit faster than one upsert a request can afford (a merchant's server in a flash sale,
 * under a raised `RATE_LIMIT_PER_MINUTE`) is counted ahead: its upsert also counts places for the
 * bucket's next hits, which this replica then hands out without asking PostgreSQL, doubling the
 * lease each time one is used up, up to `leaseCap` (1 % of the limit). Places are counted before
 * they are used, so the shared count is never behind the requests let through: a client is
 * never let past its limit, and may meet it early by what its replicas hold unused when the
 * window ends (at most 1 % of the limit each).
 */
export function createRateLimiter(sql: Sql): RateLimiter {
  let lastPrune = 0;
  const leases = new Map<string, Lease>();
  const place = batched((hits: Hit[]) => placeHits(sql, leases, hits));

  return {
    async hit(bucket, limit, windowSeconds = 60) {
      const nowMs = Date.now();
      const windowStartMs = Math.floor(nowMs / (windowSeconds * 1000)) * windowSeconds * 1000;
      const lease = leases.get(bucket);
      if (lease?.windowStartMs === windowStartMs && lease.next <= lease.last) {
        lease.next++;
        return 0;
      }
      const windowEndMs = windowStartMs + windowSeconds * 1000;
      const counted = place({ bucket, windowStartMs, windowEndMs, limit });
      if (nowMs - lastPrune > 60_000) {
        lastPrune = nowMs;
        for (const [key, old] of leases) if (old.windowEndMs <= nowMs) leases.delete(key);
        sql`delete from rate_limit_counters where window_start < now() - interval '1 hour'`.catch(() => {});
      }
      if ((await counted) <= limit) return 0;
      return Math.max(1, Math.ceil((windowEndMs - nowMs) / 1000));
    },
  };
}

/**
 * The place of each hit in its bucket's window: from the bucket's lease where it has places left,
 * else from one upsert for the whole batch, which also takes the buckets' next leases.
 */
async function placeHits(sql: Sql, leases: Map<string, Lease>, hits: Hit[]): Promise<number[]> {
  const places: number[] = [];
  // The hits of one bucket's window, in arrival order, and how many places they take ahead.
  const groups = new Map<string, { hit: Hit; indexes: number[]; ahead: number }>();
  for (const [i, hit] of hits.entries()) {
    // A lease taken by the upsert that was in flight when this hit arrived serves it first: a
    // lease is replaced only once used up, so no place counted ahead is left behind.
    const lease = leases.get(hit.bucket);
    if (lease?.windowStartMs === hit.windowStartMs && lease.next <= lease.last) {
      places[i] = lease.next++;
      continue;
    }
    const id = `${hit.windowStartMs}:${hit.bucket}`;
    const group = groups.get(id);
    if (group) {
      group.indexes.push(i);
      continue;
    }
    // The first hit of a window takes nothing ahead: a bucket hit now and then stays exact.
    const ahead =
      lease?.windowStartMs === hit.windowStartMs
        ? Math.min(leaseCap(hit.limit), Math.max(1, lease.ahead * 2))
        : 0;
    groups.set(id, { hit, indexes: [i], ahead });
  }
  if (groups.size === 0) return places;
  const rows = [...groups.values()];
  // Repeated while the database restarts, so a restart does not turn every request of the
  // batch into a 503. An attempt cut off after its commit counts those hits twice: a client
  // may meet its limit a little early during a restart, never late.
  const counted = await retryWhileUnavailable(
    () => sql<{ bucket: string; window_start: Date; hits: number }[]>`
    insert into rate_limit_counters (bucket, window_start, hits)
    select * from unnest(${rows.map((r) => r.hit.bucket)}::text[],
                         ${rows.map((r) => new Date(r.hit.windowStartMs).toISOString())}::timestamptz[],
                         ${rows.map((r) => r.indexes.length + r.ahead)}::int[])
    on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + excluded.hits
    returning bucket, window_start, hits`,
  );
  if (counted.length !== rows.length) throw new Error("rate limit upsert lost a bucket");
  for (const row of counted) {
    const { hit, indexes, ahead } = groups.get(`${row.window_start.getTime()}:${row.bucket}`)!;
    const first = row.hits - (indexes.length + ahead) + 1;
    for (const [n, i] of indexes.entries()) places[i] = first + n;
    const current = leases.get(row.bucket);
    if (leaseCap(hit.limit) > 0 && (!current || current.windowStartMs <= hit.windowStartMs))
      leases.set(row.bucket, {
        windowStartMs: hit.windowStartMs,
        windowEndMs: hit.windowEndMs,
        next: first + indexes.length,
        last: Math.min(row.hits, hit.limit),
        ahead,
      });
  }
  return places;
}

/** N requests per minute per client IP, over every JSON API call (docs/dashboard.md, "Rate limits"). */
export function rateLimitByIp(
  limiter: RateLimiter,
  limit: number,
  clientIp: (req: Request) => string,
): RequestHandler {
  return async (req, _res, next) => {
    try {
      const retryAfter = await limiter.hit(`ip:${clientIp(req)}`, limit);
      if (retryAfter > 0) {
        return next(new GatewayError("rate_limited", { headers: { "Retry-After": String(retryAfter) } }));
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
