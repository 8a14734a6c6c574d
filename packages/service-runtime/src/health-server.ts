import http from "node:http";
import type { Logger } from "@gateway/logging";

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export interface HealthServerOptions {
  port: number;
  log: Logger;
  checks: Record<string, () => Promise<unknown>>;
  /** Extra GET routes. */
  routes?: Record<string, (res: http.ServerResponse) => Promise<void> | void>;
  /** Served at /metrics (a prom-client registry). */
  metrics?: { contentType: string; metrics(): Promise<string> };
}

/**
 * `/healthz` and `/readyz` for services that have no HTTP surface of their own (settlement,
 * notifier, watchers). Readiness runs the given checks; each must resolve to pass.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz") return json(res, 200, { status: "ok" });
    if (path === "/readyz") {
      const entries = await Promise.all(
        Object.entries(options.checks).map(async ([name, check]) => {
          try {
            await withTimeout(check(), 2_000);
            return [name, "ok"] as const;
          } catch {
            return [name, "unavailable"] as const;
          }
        }),
      );
      const ready = entries.every(([, s]) => s === "ok");
      return json(res, ready ? 200 : 503, {
        status: ready ? "ok" : "unavailable",
        ...Object.fromEntries(entries),
      });
    }
    if (path === "/metrics" && options.metrics) {
      res
        .writeHead(200, { "content-type": options.metrics.contentType })
        .end(await options.metrics.metrics());
      return;
    }
    const extra = path ? options.routes?.[path] : undefined;
    if (extra && req.method === "GET") return extra(res);
    json(res, 404, {
      error: { type: "invalid_request_error", code: "route_not_found", message: "No such endpoint." },
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, "0.0.0.0", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  options.log.info({ port }, "health endpoint listening");
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms).unref()),
  ]);
}
