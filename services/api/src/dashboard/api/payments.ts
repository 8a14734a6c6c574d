import { type Mode, PAYMENT_STATUSES } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { findPayment, listPayments, toPaymentResource } from "@gateway/payments";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { pageLimit, queryString } from "../../http/params.js";

function modeParam(raw: unknown): Mode {
  if (raw === undefined) return "live";
  if (raw === "live" || raw === "test") return raw;
  throw new GatewayError("parameter_invalid", { param: "mode", message: "mode must be live or test." });
}

function statusParam(raw: unknown): string | undefined {
  const status = queryString(raw, "status");
  if (status !== undefined && !(PAYMENT_STATUSES as readonly string[]).includes(status)) {
    throw new GatewayError("parameter_invalid", {
      param: "status",
      message: `status must be one of ${PAYMENT_STATUSES.join(", ")}.`,
    });
  }
  return status;
}

/**
 * `GET /dashboard/api/payments?mode=&status=&limit=&starting_after=`: the signed-in merchant's
 * payments of one mode (live unless asked), newest first, in the merchant API's shape.
 */
export function listDashboardPayments({ sql, config }: Pick<ApiDeps, "sql" | "config">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    for (const key of Object.keys(req.query)) {
      if (!["mode", "status", "limit", "starting_after"].includes(key)) {
        throw new GatewayError("parameter_unknown", { param: key });
      }
    }
    const mode = modeParam(req.query.mode);
    const status = statusParam(req.query.status);
    const limit = pageLimit(req.query.limit);
    const startingAfter = queryString(req.query.starting_after, "starting_after");
    const page = await listPayments(sql, {
      merchantId,
      mode,
      limit,
      ...(status === undefined ? {} : { status }),
      ...(startingAfter === undefined ? {} : { startingAfter }),
    });
    res.json({
      object: "list",
      data: page.rows.map((row) => toPaymentResource(row, config.PUBLIC_BASE_URL)),
      has_more: page.hasMore,
    });
  };
}

/** `GET /dashboard/api/payments/:id`: the payment and its events, oldest first (the timeline). */
export function getDashboardPayment({ sql, config }: Pick<ApiDeps, "sql" | "config">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const row = await findPayment(sql, { id: String(req.params.id), merchantId });
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payment." });
    const events = await sql<{ id: string; type: string; created_at: Date; data: unknown }[]>`
      select id, type, created_at, data from events
      where payment_id = ${row.id} and merchant_id = ${merchantId}
      order by seq`;
    res.json({
      payment: toPaymentResource(row, config.PUBLIC_BASE_URL),
      events: events.map((e) => ({
        id: e.id,
        object: "event" as const,
        type: e.type,
        created_at: e.created_at.toISOString(),
        data: e.data,
      })),
    });
  };
}
