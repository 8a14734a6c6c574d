import { GatewayError } from "@gateway/errors";
import { type PayoutRow, toPayoutResource } from "@gateway/ledger";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { pageLimit, queryString } from "../../http/params.js";
import { modeParam } from "./payout-params.js";

/**
 * `GET /payouts?mode=&limit=&starting_after=`: the merchant's payouts of one mode (live unless
 * asked), newest first, with the payments list's cursor pagination.
 */
export function listPayouts({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    for (const key of Object.keys(req.query)) {
      if (!["mode", "limit", "starting_after"].includes(key)) {
        throw new GatewayError("parameter_unknown", { param: key });
      }
    }
    const mode = modeParam(req.query.mode);
    const limit = pageLimit(req.query.limit);
    const after = queryString(req.query.starting_after, "starting_after");
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
    res.json({
      object: "list",
      data: rows.slice(0, limit).map(toPayoutResource),
      has_more: rows.length > limit,
    });
  };
}

/** `GET /payouts/:id`: one of the merchant's payouts; another merchant's id is 404. */
export function getPayout({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const [row] = await sql<PayoutRow[]>`
      select * from payouts where id = ${String(req.params.id)} and merchant_id = ${merchantId}`;
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payout." });
    res.json(toPayoutResource(row));
  };
}
