import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routedOnly } from "./routed-only.js";

/**
 * Routes alone, one of them in a nested router, and an error handler, as the API's resource and
 * page routers are.
 */
function resourceRouter(): Router {
  const router = Router();
  router.get("/payments", (_req, res) => void res.send("list"));
  router.post("/payments/:id/cancel", (req, res) => void res.send(`cancel ${req.params.id}`));
  router.get(["/dashboard", "/dashboard/"], (_req, res) => void res.send("page"));
  const assets = Router();
  assets.get("/gateway/assets/:name", (req, res) => void res.send(`asset ${req.params.name}`));
  router.use(assets);
  router.get("/failing", () => {
    throw new Error("route failed");
  });
  router.use(
    ((err, _req, res, _next) => void res.status(503).send(`handled: ${err.message}`)) as ErrorRequestHandler,
  );
  return router;
}

/**
 * An app with `router` between a middleware that queues an immediate and one that reports
 * whether that immediate ran before the request got past `router`.
 */
function appWith(router: RequestHandler) {
  const app = express();
  let hopped = false;
  app.use((_req, _res, next) => {
    hopped = false;
    setImmediate(() => {
      hopped = true;
    });
    next();
  });
  app.use(router);
  app.use((req, res) => void res.status(404).send(`fell through ${req.method} ${req.path} hopped=${hopped}`));
  return app;
}

const PATHS: [string, string][] = [
  ["GET", "/payments"],
  ["GET", "/PAYMENTS"],
  ["GET", "/payments/"],
  ["POST", "/payments/abc/cancel"],
  ["POST", "/payments"],
  ["GET", "/dashboard/"],
  ["GET", "/gateway/assets/app.js"],
  ["GET", "/failing"],
  ["GET", "/gateway"],
  ["GET", "/webhooks"],
  ["GET", "/"],
  ["GET", "/pay%6Dents"],
  ["OPTIONS", "/payments"],
  ["OPTIONS", "/elsewhere"],
];

describe("routedOnly", () => {
  const servers: { close(): void }[] = [];
  let plain = "";
  let wrapped = "";
  beforeAll(async () => {
    const listen = async (router: RequestHandler) => {
      const server = appWith(router).listen(0, "127.0.0.1");
      servers.push(server);
      await new Promise((r) => server.once("listening", r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    plain = await listen(resourceRouter());
    wrapped = await listen(routedOnly(resourceRouter()));
  });
  afterAll(() => {
    for (const s of servers) s.close();
  });

  const call = async (base: string, method: string, path: string) => {
    const res = await fetch(`${base}${path}`, { method });
    return {
      status: res.status,
      body: (await res.text()).replace(/ hopped=\w+/, ""),
      allow: res.headers.get("allow"),
    };
  };

  it("answers every request as the router itself does", async () => {
    for (const [method, path] of PATHS) {
      expect(await call(wrapped, method, path), `${method} ${path}`).toEqual(await call(plain, method, path));
    }
  });

  it("passes a request its routes cannot match on in the same turn of the event loop", async () => {
    expect(await (await fetch(`${wrapped}/webhooks`)).text()).toBe("fell through GET /webhooks hopped=false");
    // The router alone leaves through setImmediate: what routedOnly saves.
    expect(await (await fetch(`${plain}/webhooks`)).text()).toBe("fell through GET /webhooks hopped=true");
  });

  it("leaves a router that could match any path as it is", () => {
    const withMiddleware = Router();
    withMiddleware.use((_req, _res, next) => next());
    expect(routedOnly(withMiddleware)).toBe(withMiddleware);
    const withParameter = Router();
    withParameter.get("/:anything", (_req, res) => void res.end());
    expect(routedOnly(withParameter)).toBe(withParameter);
    const mountedAtPath = Router();
    mountedAtPath.use("/payments", resourceRouter());
    expect(routedOnly(mountedAtPath)).toBe(mountedAtPath);
    const resources = resourceRouter();
    expect(routedOnly(resources)).not.toBe(resources);
  });
});
