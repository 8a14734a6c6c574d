import type { IncomingMessage, ServerResponse } from "node:http";
import client from "prom-client";

/**
 * HTTP request rate and latency by method, route pattern and status. The route is the matched
 * pattern (`/payments/:id`), never the raw path, so ids do not explode the label set.
 */
export function httpMetrics(registry: client.Registry) {
  const duration = new client.Histogram({
    name: "gateway_http_request_duration_seconds",
    help: "HTTP request latency",
    labelNames: ["method", "route", "status"],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return (
    req: IncomingMessage & { route?: { path?: string }; baseUrl?: string },
    res: ServerResponse,
    next: () => void,
  ) => {
    const end = duration.startTimer({ method: req.method ?? "GET" });
    res.once("finish", () => {
      const route = req.route?.path ? `${req.baseUrl ?? ""}${req.route.path}` : "unmatched";
      end({ route, status: String(res.statusCode) });
    });
    next();
  };
}
