// Liveness and readiness on a loopback-only HTTP port, apart from the gRPC listener, so
// a local runner or kubelet can wait for the signer without holding a client certificate.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface HealthServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
}

export function createHealthServer(options: {
  port: number;
  /** Loopback by default; 0.0.0.0 where a kubelet probes the pod's address. */
  host?: string;
  ready: () => boolean;
  metrics?: () => string;
}): HealthServer {
  const server = http.createServer((req, res) => {
    const path = req.url?.split("?")[0];
    if (path === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    } else if (path === "/readyz") {
      const ready = options.ready();
      res
        .writeHead(ready ? 200 : 503, { "content-type": "text/plain" })
        .end(ready ? "ready\n" : "not ready\n");
    } else if (path === "/metrics" && options.metrics) {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(options.metrics());
    } else {
      res.writeHead(404).end();
    }
  });
  return {
    start() {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port, options.host ?? "127.0.0.1", () => {
          server.off("error", reject);
          resolve({ port: (server.address() as AddressInfo).port });
        });
      });
    },
    stop() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
