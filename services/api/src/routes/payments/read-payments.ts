import { PAYMENT_STATUSES } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { findPayment, listPayments, toPaymentResource } from "@gateway/payments";
import type { RequestHandler } from "express";
import { apiKeyPrincipal } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { pageLimit, queryString } from "../../http/params.js";

/** `GET /payments/:id`: another merchant's or the other mode's payment does not exist (404). */
export function getPayment({ sql, config }: Pick<ApiDeps, "sql" | "config">): RequestHandler {
  return async (req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    const row = await findPayment(sql, { id: String(req.params.id), merchantId, mode });
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payment." });
    res.json(toPaymentResource(row, config.PUBLIC_BASE_URL));
  };
}

/** `GET /payments?limit=&starting_after=&status=`: newest first, cursor pagination. */
export function listPaymentsRoute({ sql, config }: Pick<ApiDeps, "sql" | "config">): RequestHandler {
  return async (req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    const limit = pageLimit(req.query.limit);
    const startingAfter = queryString(req.query.starting_after, "starting_after");
    const status = queryString(req.query.status, "status");
    if (status !== undefined && !(PAYMENT_STATUSES as readonly string[]).includes(status)) {
      throw new GatewayError("parameter_invalid", {
        param: "status",
        message: `status must be one of ${PAYMENT_STATUSES.join(", ")}.`,
      });
    }
    for (const key of Object.keys(req.query)) {
      if (!["limit", "starting_after", "status"].includes(key))
        throw new GatewayError("parameter_unknown", { param: key });
    }
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
