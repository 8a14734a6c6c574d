import { Router } from "express";
import type { ApiDeps } from "../deps.js";
import { ANSWERED, defineOperation, mount } from "../http/operation.js";
import { HealthSchema } from "../openapi/resources.js";

export const healthzOperation = defineOperation({
  method: "get",
  path: "/healthz",
  operationId: "healthz",
  summary: "The process answers",
  auth: "none",
  outsideApi: true,
  responses: { 200: HealthSchema },
});

export const readyzOperation = defineOperation({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  summary: "PostgreSQL and NATS answer too",
  auth: "none",
  outsideApi: true,
  responses: {
    200: HealthSchema,
    503: { schema: HealthSchema, description: "A dependency is unreachable." },
  },
});

export const healthOperations = [healthzOperation, readyzOperation] as const;

/** `/healthz`: the process answers. `/readyz`: PostgreSQL and NATS answer too. */
export function healthRoutes({ sql, bus }: Pick<ApiDeps, "sql" | "bus">): Router {
  const router = Router();
  mount(router, healthzOperation, [], async () => ({ status: "ok" as const }));
  mount(router, readyzOperation, [], async (_input, _req, res) => {
    const checks = await Promise.allSettled([
      sql`select 1`,
      bus.nc.isClosed() ? Promise.reject(new Error("closed")) : bus.nc.flush(),
    ]);
    const [database, nats] = checks.map((c) =>
      c.status === "fulfilled" ? ("ok" as const) : ("unavailable" as const),
    );
    const ready = database === "ok" && nats === "ok";
    if (ready) return { status: "ok" as const, database, nats };
    res.status(503).json({ status: "unavailable", database, nats });
    return ANSWERED;
  });
  return router;
}
