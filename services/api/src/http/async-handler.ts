import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Express 5 forwards rejected promises itself; this only narrows the handler type in one place. */
export function route(
  handler: (req: Request, res: Response, next: NextFunction) => Promise<void> | void,
): RequestHandler {
  return (req, res, next) => Promise.resolve(handler(req, res, next)).catch(next);
}
