import type { Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request, RequestHandler } from "express";

export interface RateLimiter {
  /** Counts one hit for `bucket`; returns the seconds to wait when over the limit, else 0. */
  hit(bucket: string, limit: number, windowSeconds?: number): Promise<number>;
}

interface Hit {
  bucket: string;
  windowStartMs: number;
  resolve(hits: number): void;
  reject(err: unknown): void;
}

/**
 * Fixed windows counted in PostgreSQL, so every API replica sees the same count. The hits that
 * arrive while an upsert is in flight wait and go together in the next one, one row per bucket
 * incremented by its number of hits, each hit getting its own place in the count in arrival
 * order: exactly what one upsert per hit would give, at a fraction of the round trips under load.
 * Old windows are pruned now and then by whoever passes by.
 */
export function createRateLimiter(sql: Sql): RateLimiter {
  let lastPrune = 0;
  let waiting: Hit[] = [];
  let flushing = false;

  async function count(hits: Hit[]): Promise<void> {
    const groups = new Map<string, Hit[]>();
    for (const hit of hits) {
      const id = `${hit.windowStartMs}:${hit.bucket}`;
      const group = groups.get(id);
      if (group) group.push(hit);
      else groups.set(id, [hit]);
    }
    const rows = [...groups.values()];
    const counted = await sql<{ bucket: string; window_start: Date; hits: number }[]>`
      insert into rate_limit_counters (bucket, window_start, hits)
      select * from unnest(${rows.map((g) => g[0]!.bucket)}::text[],
                           ${rows.map((g) => new Date(g[0]!.windowStartMs).toISOString())}::timestamptz[],
                           ${rows.map((g) => g.length)}::int[])
      on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + excluded.hits
      returning bucket, window_start, hits`;
    const totals = new Map(counted.map((row) => [`${row.window_start.getTime()}:${row.bucket}`, row.hits]));
    for (const [id, group] of groups) {
      const total = totals.get(id);
      if (total === undefined) throw new Error(`rate limit row ${id} was not returned`);
      for (const [i, hit] of group.entries()) hit.resolve(total - group.length + 1 + i);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      await count(batch).catch((err: unknown) => {
        for (const hit of batch) hit.reject(err);
      });
    }
    flushing = false;
  }

  return {
    async hit(bucket, limit, windowSeconds = 60) {
      const nowMs = Date.now();
      const windowStartMs = Math.floor(nowMs / (windowSeconds * 1000)) * windowSeconds * 1000;
      const place = new Promise<number>((resolve, reject) => {
        waiting.push({ bucket, windowStartMs, resolve, reject });
      });
      if (!flushing) void flush();
      if (nowMs - lastPrune > 60_000) {
        lastPrune = nowMs;
        sql`delete from rate_limit_counters where window_start < now() - interval '1 hour'`.catch(() => {});
      }
      if ((await place) <= limit) return 0;
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
