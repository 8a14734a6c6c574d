import type { NextFunction, Request, RequestHandler, Response, Router } from "express";

/**
 * Routers, in order, each entered only by requests whose path could match one of its routes.
 * Walking past an Express router is not free: every layer a request passes stores the layer's
 * match on the request, and a router entered that matches nothing also sets up and restores the
 * request's routing state and leaves through `setImmediate`, one turn of the event loop. A
 * `POST /payments` walked past ten routers before its own.
 *
 * Routers are told apart by the first segment of the path, against the first segments of their
 * routes (nested routers included): one lookup picks the routers that could serve the request,
 * which are then run in their given order as consecutive `use`s would run them. It changes
 * nothing a request sees: a router made of routes alone matches nothing outside those segments,
 * and a router is skipped while an error is pending, as Express skips this (three-argument)
 * handler. A router that could match any path (a middleware of its own, a parameter or pattern
 * as first segment) is run for every path, in its place.
 */
export function routedBySegment(...routers: Router[]): RequestHandler {
  const segmentsOf = routers.map(firstSegments);
  const anyPath = routers.filter((_, i) => !segmentsOf[i]);
  const bySegment = new Map<string, Router[]>();
  for (const segment of new Set(segmentsOf.flatMap((s) => [...(s ?? [])]))) {
    bySegment.set(
      segment,
      routers.filter((_, i) => !segmentsOf[i] || segmentsOf[i]!.has(segment)),
    );
  }
  return (req, res, next) => {
    runInTurn(bySegment.get(firstSegment(req)) ?? anyPath, 0, req, res, next);
  };
}

/** The routers from `i` on, each after the one before passed the request on without an error. */
function runInTurn(routers: Router[], i: number, req: Request, res: Response, next: NextFunction): void {
  const router = routers[i];
  // A router passes on nothing but an error (it turns `next('route')` and `next('router')` of its
  // own layers into a plain pass).
  if (router)
    router(req, res, (err?: unknown) => (err ? next(err) : runInTurn(routers, i + 1, req, res, next)));
  else next();
}

/** What Express 5's router keeps of each `get`/`post`/… (`route`) and `use` (`slash`: no path). */
interface Layer {
  route?: { path: string | string[] };
  slash: boolean;
  handle: unknown;
}

/** The lower-cased first segments of every route of `router`, or undefined if it can match anything. */
function firstSegments(router: Router): Set<string> | undefined {
  const segments = new Set<string>();
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        if (typeof path !== "string") return undefined;
        const segment = segmentOf(path);
        // A parameter or pattern there matches other segments too.
        if (/[:*?(){}+\\]/.test(segment)) return undefined;
        segments.add(segment);
      }
      continue;
    }
    // An error handler: Express enters a router only without a pending error, so it sees only
    // the errors of this router's own routes, which run only for the segments found here.
    if (layer.slash && typeof layer.handle === "function" && layer.handle.length === 4) continue;
    // A nested router (a layer mounted without a path): its routes count as this router's.
    const nested = layer.slash && isRouter(layer.handle) ? firstSegments(layer.handle) : undefined;
    if (!nested) return undefined;
    for (const segment of nested) segments.add(segment);
  }
  return segments;
}

function isRouter(handle: unknown): handle is Router {
  return typeof handle === "function" && Array.isArray((handle as { stack?: unknown }).stack);
}

function segmentOf(path: string): string {
  const end = path.indexOf("/", 1);
  return path.slice(1, end === -1 ? undefined : end).toLowerCase();
}

/** Routing is case-insensitive (Express's default), so the comparison is too. */
function firstSegment(req: Request): string {
  return segmentOf(req.path);
}
