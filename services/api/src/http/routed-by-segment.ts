import type { NextFunction, Request, RequestHandler, Response, Router } from "express";

/**
 * Routers, in order, each entered only by requests whose path could match one of its routes.
 * Walking past an Express router is not free: every layer a request passes stores the layer's
 * match on the request, and a router entered that matches nothing also sets up and restores the
 * request's routing state and leaves through `setImmediate`, one turn of the event loop. A
 * `POST /payments` walked past ten routers before its own.
 *
 * Each route's path is known up to its first parameter (`/payments/checkout/{id}`: `payments`,
 * `checkout`). A request's path is split into segments once; one lookup of the first segment
 * gives the routers that could serve it, and of those a router runs only if the path starts with
 * one of its routes' known segments, in the routers' given order, as consecutive `use`s would run
 * them. It changes nothing a request sees: a router made of routes alone matches no path outside
 * its routes' known segments, and a router is skipped while an error is pending, as Express skips
 * this (three-argument) handler. A router that could match any path (a middleware of its own, a
 * parameter or pattern as first segment) runs for every path, in its place.
 */
export function routedBySegment(...routers: Router[]): RequestHandler {
  const entries: Entry[] = routers.map((router) => ({ router, prefixes: routePrefixes(router) }));
  const anyPath = entries.filter((e) => !e.prefixes);
  const byFirst = new Map<string, Entry[]>();
  for (const first of new Set(entries.flatMap((e) => (e.prefixes ?? []).map((p) => p[0]!)))) {
    byFirst.set(
      first,
      entries.filter((e) => !e.prefixes || e.prefixes.some((p) => p[0] === first)),
    );
  }
  return (req, res, next) => {
    const segments = segmentsOf(req.path);
    runInTurn(byFirst.get(segments[0]!) ?? anyPath, 0, segments, req, res, next);
  };
}

interface Entry {
  router: Router;
  /** The known leading segments of each route, or undefined if the router can match any path. */
  prefixes: string[][] | undefined;
}

/** The routers from `i` on that could match, each after the one before passed the request on. */
function runInTurn(
  entries: Entry[],
  i: number,
  segments: string[],
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  let entry = entries[i];
  while (entry?.prefixes && !entry.prefixes.some((prefix) => startsWith(segments, prefix)))
    entry = entries[++i];
  // A router passes on nothing but an error (it turns `next('route')` and `next('router')` of its
  // own layers into a plain pass).
  if (entry)
    entry.router(req, res, (err?: unknown) =>
      err ? next(err) : runInTurn(entries, i + 1, segments, req, res, next),
    );
  else next();
}

function startsWith(segments: string[], prefix: string[]): boolean {
  return prefix.every((segment, i) => segments[i] === segment);
}

/** What Express 5's router keeps of each `get`/`post`/… (`route`) and `use` (`slash`: no path). */
interface Layer {
  route?: { path: string | string[] };
  slash: boolean;
  handle: unknown;
}

/** The known leading segments of every route of `router`, or undefined if it can match anything. */
function routePrefixes(router: Router): string[][] | undefined {
  const prefixes: string[][] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        if (typeof path !== "string") return undefined;
        const segments = segmentsOf(path);
        // Up to the first parameter or pattern, which matches other segments too.
        const known = segments.findIndex((segment) => /[:*?(){}+\\]/.test(segment));
        const prefix = known === -1 ? segments : segments.slice(0, known);
        // A trailing slash: the route matches the path without it too (non-strict routing).
        while (prefix.at(-1) === "") prefix.pop();
        if (prefix.length === 0) return undefined;
        prefixes.push(prefix);
      }
      continue;
    }
    // An error handler: Express enters a router only without a pending error, so it sees only
    // the errors of this router's own routes, which run only for the paths found here.
    if (layer.slash && typeof layer.handle === "function" && layer.handle.length === 4) continue;
    // A nested router (a layer mounted without a path): its routes count as this router's.
    const nested = layer.slash && isRouter(layer.handle) ? routePrefixes(layer.handle) : undefined;
    if (!nested) return undefined;
    prefixes.push(...nested);
  }
  return prefixes;
}

function isRouter(handle: unknown): handle is Router {
  return typeof handle === "function" && Array.isArray((handle as { stack?: unknown }).stack);
}

/** `/Payments/checkout/x` → `payments`, `checkout`, `x`: routing is case-insensitive (Express's default). */
function segmentsOf(path: string): string[] {
  return path.toLowerCase().slice(1).split("/");
}
