import type { Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request, RequestHandler } from "express";

export interface RateLimiter {
  /** Counts one hit for `bucket`; returns the seconds to wait when over the limit, else 0. */
  hit(bucket: string, limit: number, windowSeconds?: number): Promise<number>;
}

/**
 * Fixed one-minute windows counted in PostgreSQL, so every API replica sees the same count.
 * One upsert per request; old windows are pruned now and then by whoever passes by.
 */
export function createRateLimiter(sql: Sql): RateLimiter {
  let lastPrune = 0;
  return {
    async hit(bucket, limit, windowSeconds = 60) {
      const nowMs = Date.now();
      const windowStartMs = Math.floor(nowMs / (windowSeconds * 1000)) * windowSeconds * 1000;
      const windowStart = new Date(windowStartMs);
      const [row] = await sql<{ hits: number }[]>`
        insert into rate_limit_counters (bucket, window_start, hits) values (${bucket}, ${windowStart}, 1)
        on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + 1
        returning hits`;
      if (nowMs - lastPrune > 60_000) {
        lastPrune = nowMs;
        sql`delete from rate_limit_counters where window_start < now() - interval '1 hour'`.catch(() => {});
      }
      if ((row?.hits ?? 0) <= limit) return 0;
      return Math.max(1, Math.ceil((windowStartMs + windowSeconds * 1000 - nowMs) / 1000));
    },
  };
}

/** PRODUCT.md: N requests per minute per client IP, over every JSON API call. */
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
