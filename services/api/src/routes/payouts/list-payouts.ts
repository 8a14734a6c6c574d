import { GatewayError } from "@gateway/errors";
import { findPayout, listPayouts as listPayoutRows, toPayoutResource } from "@gateway/payouts";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { cursor, modeField, pageLimit } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { PayoutListSchema, PayoutSchema } from "../../openapi/resources.js";

export const payoutModeQuery = modeField.optional().meta({ description: "live (default) or test." });

export const listPayoutsOperation = defineOperation({
  method: "get",
  path: "/payouts",
  operationId: "listPayouts",
  summary: "List payouts of one mode, newest first",
  auth: "bearer",
  query: z.object({ mode: payoutModeQuery, limit: pageLimit, starting_after: cursor }),
  responses: { 200: PayoutListSchema },
  errors: { 404: "No such payout as `starting_after`." },
});

/**
 * `GET /payouts?mode=&limit=&starting_after=`: the merchant's payouts of one mode (live unless
 * asked), newest first, with the payments list's cursor pagination.
 */
export function listPayouts({ sql }: Pick<ApiDeps, "sql">): Handler<typeof listPayoutsOperation> {
  return async ({ query }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const page = await listPayoutRows(sql, {
      merchantId,
      mode: query.mode ?? "live",
      limit: query.limit ?? 10,
      startingAfter: query.starting_after,
    });
    if (!page)
      throw new GatewayError("resource_not_found", { param: "starting_after", message: "No such payout." });
    return { object: "list", data: page.rows.map(toPayoutResource), has_more: page.hasMore };
  };
}

export const getPayoutOperation = defineOperation({
  method: "get",
  path: "/payouts/{id}",
  operationId: "getPayout",
  summary: "Read one payout",
  auth: "bearer",
  params: z.object({ id: z.string() }),
  responses: { 200: PayoutSchema },
  errors: { 404: "No such payout (or another merchant's)." },
});

/** `GET /payouts/:id`: one of the merchant's payouts; another merchant's id is 404. */
export function getPayout({ sql }: Pick<ApiDeps, "sql">): Handler<typeof getPayoutOperation> {
  return async ({ params }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const row = await findPayout(sql, { id: params.id, merchantId });
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payout." });
    return toPayoutResource(row);
  };
}
