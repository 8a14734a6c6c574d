import { isDatabaseUnavailable } from "@gateway/db";
import type { ErrorRequestHandler, Request, RequestHandler, Response } from "express";
import { idempotencyClaim } from "./idempotency.js";

/**
 * A request cut off by a PostgreSQL restart (a statement in flight when the server went away) is
 * run again from the top while the restart lasts, as the client's own retry would run it, instead
 * of being answered 503 (issue #21). Only requests that a retry may repeat: reads, and POSTs that
 * hold their Idempotency-Key's claim (every such handler is written to be retried with its key;
 * the claim, still this request's, keeps any other attempt out meanwhile).
 */
export function rerunAfterDatabaseRestart(router: RequestHandler, windowMs = 10_000): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (!isDatabaseUnavailable(err) || res.headersSent || !repeatable(req, res)) return next(err);
    const rerun: { since: number; attempts: number } = res.locals.databaseRerun ?? {
      since: Date.now(),
      attempts: 0,
    };
    res.locals.databaseRerun = rerun;
    if (Date.now() - rerun.since >= windowMs) return next(err);
    rerun.attempts++;
    // Opening a connection already waits for the server to come back (packages/db/src/client.ts).
    setTimeout(() => router(req, res, next), Math.min(50 * 2 ** rerun.attempts, 1000));
  };
}

function repeatable(req: Request, res: Response): boolean {
  return req.method === "GET" || req.method === "HEAD" || idempotencyClaim(res) !== undefined;
}
