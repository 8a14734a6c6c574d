import { GatewayError } from "@gateway/errors";
import { type PayoutRow, toPayoutResource } from "@gateway/ledger";
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
    const mode = query.mode ?? "live";
    const limit = query.limit ?? 10;
    const after = query.starting_after;
    let cursor: { created_at: Date; id: string } | undefined;
    if (after !== undefined) {
      [cursor] = await sql<{ created_at: Date; id: string }[]>`
        select created_at, id from payouts where id = ${after} and merchant_id = ${merchantId} and mode = ${mode}`;
      if (!cursor)
        throw new GatewayError("resource_not_found", { param: "starting_after", message: "No such payout." });
    }
    const rows = await sql<PayoutRow[]>`
      select * from payouts where merchant_id = ${merchantId} and mode = ${mode}
      ${cursor ? sql`and (created_at, id) < (${cursor.created_at}, ${cursor.id})` : sql``}
      order by created_at desc, id desc limit ${limit + 1}`;
    return {
      object: "list",
      data: rows.slice(0, limit).map(toPayoutResource),
      has_more: rows.length > limit,
    };
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
    const [row] = await sql<PayoutRow[]>`
      select * from payouts where id = ${params.id} and merchant_id = ${merchantId}`;
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payout." });
    return toPayoutResource(row);
  };
}
