import { Router } from "express";
import type { ApiDeps } from "../deps.js";

/** `/healthz`: the process answers. `/readyz`: PostgreSQL and NATS answer too. */
export function healthRoutes({ sql, bus }: Pick<ApiDeps, "sql" | "bus">): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const checks = await Promise.allSettled([
      sql`select 1`,
      bus.nc.isClosed() ? Promise.reject(new Error("closed")) : bus.nc.flush(),
    ]);
    const [database, nats] = checks.map((c) => (c.status === "fulfilled" ? "ok" : "unavailable"));
    const ready = database === "ok" && nats === "ok";
    res.status(ready ? 200 : 503).json({ status: ready ? "ok" : "unavailable", database, nats });
  });
  return router;
}
