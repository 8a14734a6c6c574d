import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routedBySegment } from "./routed-by-segment.js";

/**
 * Routes alone, one of them in a nested router, and an error handler, as the API's resource and
 * page routers are.
 */
function resourceRouter(): Router {
  const router = Router();
  router.get("/payments", (_req, res) => void res.send("list"));
  router.post("/payments/:id/cancel", (req, res) => void res.send(`cancel ${req.params.id}`));
  router.get(["/dashboard", "/dashboard/"], (_req, res) => void res.send("page"));
  router.get("/double//slash", (_req, res) => void res.send("double"));
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
  ["GET", "/gateway/qr"],
  ["GET", "/double//slash"],
  ["GET", "/double/slash"],
  ["GET", "/Gateway/Assets/app.js"],
  ["GET", "/webhooks"],
  ["GET", "/"],
  ["GET", "/pay%6Dents"],
  ["OPTIONS", "/payments"],
  ["OPTIONS", "/elsewhere"],
];

describe("routedBySegment", () => {
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
    wrapped = await listen(routedBySegment(resourceRouter()));
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
    // Its first segment is a route's, but not the segment after it.
    expect(await (await fetch(`${wrapped}/gateway/qr`)).text()).toBe(
      "fell through GET /gateway/qr hopped=false",
    );
    // The router alone leaves through setImmediate: what routedOnly saves.
    expect(await (await fetch(`${plain}/webhooks`)).text()).toBe("fell through GET /webhooks hopped=true");
  });

  it("runs the routers of a segment, and those that could match any path, in their given order", async () => {
    const seen: string[] = [];
    const pass =
      (name: string): RequestHandler =>
      (_req, _res, next) => {
        seen.push(name);
        next();
      };
    const first = Router();
    first.get("/payments", pass("first"));
    const anyPath = Router();
    anyPath.use(pass("any path"));
    const serving = Router();
    serving.get("/payments", (_req, res) => void res.send("served"));
    const other = Router();
    other.get("/webhooks", (_req, res) => void res.send("webhooks"));
    const server = appWith(routedBySegment(first, anyPath, other, serving)).listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise((r) => server.once("listening", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await (await fetch(`${base}/payments`)).text()).toBe("served");
    expect(seen).toEqual(["first", "any path"]);
    seen.length = 0;
    expect(await (await fetch(`${base}/webhooks`)).text()).toBe("webhooks");
    expect(seen).toEqual(["any path"]);
    seen.length = 0;
    expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
    expect(seen).toEqual(["any path"]);
  });

  it("passes on an error a router's routes raise, to the handlers after it", async () => {
    const failing = Router();
    failing.get("/payments", () => {
      throw new Error("route failed");
    });
    const app = express();
    app.use(routedBySegment(failing, resourceRouter()));
    app.use(
      ((err, _req, res, _next) => void res.status(500).send(`after: ${err.message}`)) as ErrorRequestHandler,
    );
    const server = app.listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise((r) => server.once("listening", r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/payments`);
    expect(await res.text()).toBe("after: route failed");
  });
});
