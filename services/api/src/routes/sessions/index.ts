// The signed-in member's sessions: list them, end one (this one too: that is logging out).
import { GatewayError } from "@gateway/errors";
import { Router } from "express";
import { z } from "zod";
import { createAudit, memberActor } from "../../auth/audit.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { addressedBy, defineOperation, type Handler, mount } from "../../http/operation.js";
import { OkSchema, SessionListSchema } from "../../openapi/account-resources.js";

export const listSessionsOperation = defineOperation({
  method: "get",
  path: "/sessions",
  operationId: "listSessions",
  summary: "The signed-in member's live sessions, newest first; `current` marks this one.",
  auth: "bearer",
  responses: { 200: SessionListSchema },
});

export const revokeSessionOperation = addressedBy(
  z.object({ id: z.string().max(100) }),
  "No such live session of yours.",
)({
  method: "delete",
  path: "/sessions/{id}",
  operationId: "revokeSession",
  summary: "Ends a session: its token is refused at once, on every API replica.",
  auth: "bearer",
  responses: { 200: OkSchema },
});

export const sessionOperations = [listSessionsOperation, revokeSessionOperation] as const;

function listSessions({ sql }: Pick<ApiDeps, "sql">): Handler<typeof listSessionsOperation> {
  return async (_input, _req, res) => {
    const { userId, sessionId } = sessionPrincipal(res);
    const rows = await sql<
      { id: string; created_at: Date; last_seen_at: Date; ip: string; user_agent: string }[]
    >`
      select id, created_at, last_seen_at, ip, user_agent from sessions
      where user_id = ${userId} and revoked_at is null and expires_at > now()
      order by created_at desc, id limit 100`;
    return {
      object: "list",
      data: rows.map((r) => ({
        id: r.id,
        object: "session" as const,
        created_at: r.created_at.toISOString(),
        last_seen_at: r.last_seen_at.toISOString(),
        ip: r.ip,
        user_agent: r.user_agent,
        current: r.id === sessionId,
      })),
      has_more: false,
    };
  };
}

function revokeSession(
  { sql }: Pick<ApiDeps, "sql">,
  audit: ReturnType<typeof createAudit>,
): Handler<typeof revokeSessionOperation> {
  return async ({ params: { id } }, req, res) => {
    const session = sessionPrincipal(res);
    await sql.begin(async (tx) => {
      const revoked = await tx`update sessions set revoked_at = now()
        where id = ${id} and user_id = ${session.userId} and revoked_at is null returning 1`;
      if (revoked.length === 0)
        throw new GatewayError("resource_not_found", { message: "No such live session of yours." });
      await audit.record(
        tx,
        { ...memberActor(session), action: "session.revoked", details: { session: id } },
        req,
      );
    });
    return { object: "session", deleted: true, id };
  };
}

export function sessionRoutes(deps: ApiDeps): Router {
  const router = Router();
  const audit = createAudit(deps.config.TRUSTED_PROXIES);
  mount(router, listSessionsOperation, [deps.sessions.require], listSessions(deps));
  mount(router, revokeSessionOperation, [deps.sessions.require], revokeSession(deps, audit));
  return router;
}
