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
}

/**
 * Fixed windows counted in PostgreSQL, so every API replica sees the same count. The hits that
 * arrive while an upsert is in flight go together in the next one, one row per bucket incremented
 * by its number of hits, each hit getting its own place in the count in arrival order: exactly
 * what one upsert per hit would count, at a fraction of the round trips under load. Old windows
 * are pruned now and then by whoever passes by.
 */
export function createRateLimiter(sql: Sql): RateLimiter {
  let lastPrune = 0;
  const place = batched(async (hits: Hit[]): Promise<number[]> => {
    const groups = new Map<string, number[]>();
    for (const [i, hit] of hits.entries()) {
      const id = `${hit.windowStartMs}:${hit.bucket}`;
      const group = groups.get(id);
      if (group) group.push(i);
      else groups.set(id, [i]);
    }
    const rows = [...groups.values()].map((indexes) => ({ hit: hits[indexes[0]!]!, count: indexes.length }));
    // Repeated while the database restarts, so a restart does not turn every request of the
    // batch into a 503. An attempt cut off after its commit counts those hits twice: a client
    // may meet its limit a little early during a restart, never late.
    const counted = await retryWhileUnavailable(
      () => sql<{ bucket: string; window_start: Date; hits: number }[]>`
      insert into rate_limit_counters (bucket, window_start, hits)
      select * from unnest(${rows.map((r) => r.hit.bucket)}::text[],
                           ${rows.map((r) => new Date(r.hit.windowStartMs).toISOString())}::timestamptz[],
                           ${rows.map((r) => r.count)}::int[])
      on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + excluded.hits
      returning bucket, window_start, hits`,
    );
    if (counted.length !== rows.length) throw new Error("rate limit upsert lost a bucket");
    const places: number[] = [];
    for (const row of counted) {
      const indexes = groups.get(`${row.window_start.getTime()}:${row.bucket}`) ?? [];
      for (const [n, i] of indexes.entries()) places[i] = row.hits - indexes.length + 1 + n;
    }
    return places;
  });

  return {
    async hit(bucket, limit, windowSeconds = 60) {
      const nowMs = Date.now();
      const windowStartMs = Math.floor(nowMs / (windowSeconds * 1000)) * windowSeconds * 1000;
      const counted = place({ bucket, windowStartMs });
      if (nowMs - lastPrune > 60_000) {
        lastPrune = nowMs;
        sql`delete from rate_limit_counters where window_start < now() - interval '1 hour'`.catch(() => {});
      }
      if ((await counted) <= limit) return 0;
      return Math.max(1, Math.ceil((windowStartMs + windowSeconds * 1000 - nowMs) / 1000));
    },
  };
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
