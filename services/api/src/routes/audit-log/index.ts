// `GET /audit-log`: the account's security log, newest first, for owners and admins. Read-only:
// no route writes it but the actions it records, and the table refuses changes (migration 1700).
import { GatewayError } from "@gateway/errors";
import { Router } from "express";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { cursor, pageLimit } from "../../http/fields.js";
import { defineOperation, type Handler, mount } from "../../http/operation.js";
import { AuditLogSchema } from "../../openapi/account-resources.js";

export const auditLogOperation = defineOperation({
  method: "get",
  path: "/audit-log",
  operationId: "listAuditLog",
  summary: "Security-relevant actions, newest first, with cursor pages.",
  auth: "bearer",
  query: z.object({ limit: pageLimit, starting_after: cursor }),
  responses: { 200: AuditLogSchema },
});

interface AuditRow {
  id: string;
  action: string;
  actor: string;
  ip: string;
  user_agent: string;
  created_at: Date;
  details: Record<string, unknown>;
}

function listAuditLog({ sql }: Pick<ApiDeps, "sql">): Handler<typeof auditLogOperation> {
  return async ({ query: { limit = 20, starting_after: after } }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    let fromSeq: string | undefined;
    if (after !== undefined) {
      const [found] = await sql<{ seq: string }[]>`
        select seq::text from audit_log where id = ${after} and merchant_id = ${merchantId}`;
      if (!found)
        throw new GatewayError("parameter_invalid", {
          param: "starting_after",
          message: "No such audit entry.",
        });
      fromSeq = found.seq;
    }
    const rows = await sql<AuditRow[]>`
      select id, action, actor, ip, user_agent, created_at, details from audit_log
      where merchant_id = ${merchantId} ${fromSeq === undefined ? sql`` : sql`and seq < ${fromSeq}`}
      order by seq desc limit ${limit + 1}`;
    return {
      object: "list",
      data: rows.slice(0, limit).map((r) => ({
        id: r.id,
        object: "audit_entry" as const,
        action: r.action as never,
        actor: r.actor,
        ip: r.ip,
        user_agent: r.user_agent,
        created_at: r.created_at.toISOString(),
        details: r.details,
      })),
      has_more: rows.length > limit,
    };
  };
}

export const auditLogOperations = [auditLogOperation] as const;

export function auditLogRoutes(deps: ApiDeps): Router {
  const router = Router();
  mount(router, auditLogOperation, [deps.sessions.require], listAuditLog(deps));
  return router;
}
