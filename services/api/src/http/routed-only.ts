import type { Request, RequestHandler, Router } from "express";

/**
 * A router entered only by requests whose path could match one of its routes. Entering an
 * Express router that matches nothing is not free: it sets up and restores the request's
 * routing state, and leaves through `setImmediate`, one turn of the event loop for every router
 * a request walks past. A `POST /payments` walked past five (health, both pages and their
 * assets, checkout) before it reached its own.
 *
 * The test is the path's first segment against the first segments of the router's route paths
 * (nested routers included). It changes nothing a request sees: a router made of routes alone
 * matches nothing outside those segments, and a route never matches while an error is pending,
 * which is when Express skips this (three-argument) handler, as it skips a router. A router that
 * could match any path (a middleware of its own, a parameter or pattern as first segment) is
 * returned as it is.
 */
export function routedOnly(router: Router): RequestHandler {
  const segments = firstSegments(router);
  if (!segments) return router;
  return (req, res, next) => {
    if (segments.has(firstSegment(req))) router(req, res, next);
    else next();
  };
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
