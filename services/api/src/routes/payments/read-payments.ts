import type { Mode, PaymentStatus } from "@gateway/contracts";
import { PaymentSchema, PaymentStatusSchema } from "@gateway/contracts/payment-resource";
import { GatewayError } from "@gateway/errors";
import { findPayment, listPayments, type PaymentRow, toPaymentResource } from "@gateway/payments";
import type { Response } from "express";
import { z } from "zod";
import { apiKeyPrincipal } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { cursor, pageLimit, paymentIdParams } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { PaymentListSchema } from "../../openapi/resources.js";

export const getPaymentOperation = defineOperation({
  method: "get",
  path: "/payments/{id}",
  operationId: "getPayment",
  summary: "Fetch a payment to confirm its outcome server-side",
  auth: "apiKey",
  params: paymentIdParams,
  responses: { 200: PaymentSchema },
  errors: { 404: "No such payment (or it belongs to another merchant or mode)." },
});

export const listPaymentsOperation = defineOperation({
  method: "get",
  path: "/payments",
  operationId: "listPayments",
  summary: "List payments, newest first",
  auth: "apiKey",
  query: z.object({ limit: pageLimit, starting_after: cursor, status: PaymentStatusSchema.optional() }),
  responses: { 200: PaymentListSchema },
});

/**
 * `GET /payments/:id` and `GET /payments?limit=&starting_after=&status=` (newest first, cursor
 * pagination): the key's merchant and mode only; another merchant's or the other mode's payment
 * does not exist (404).
 */
export function paymentReads({ sql, config }: Pick<ApiDeps, "sql" | "config">): {
  get: Handler<typeof getPaymentOperation>;
  list: Handler<typeof listPaymentsOperation>;
} {
  const owner = (res: Response) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return { merchantId, mode };
  };
  return {
    get: async ({ params }, _req, res) =>
      toPaymentResource(await ownPayment(sql, { id: params.id, ...owner(res) }), config.PUBLIC_BASE_URL),
    list: async ({ query }, _req, res) => paymentPage(sql, config.PUBLIC_BASE_URL, owner(res), query),
  };
}

/** The merchant's payment (of one mode, when given); another merchant's, or none, is a 404 on `id`. */
export async function ownPayment(
  sql: ApiDeps["sql"],
  query: { id: string; merchantId: string; mode?: Mode },
): Promise<PaymentRow> {
  const row = await findPayment(sql, query);
  if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such payment." });
  return row;
}

/**
 * One page of a merchant's payments in one mode, newest first, as the merchant API answers it
 * (the dashboard's list answers the same).
 */
export async function paymentPage(
  sql: ApiDeps["sql"],
  publicBaseUrl: string,
  owner: { merchantId: string; mode: Mode },
  query: {
    limit?: number | undefined;
    status?: PaymentStatus | undefined;
    starting_after?: string | undefined;
  },
) {
  const page = await listPayments(sql, {
    ...owner,
    limit: query.limit ?? 10,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.starting_after === undefined ? {} : { startingAfter: query.starting_after }),
  });
  return {
    object: "list" as const,
    data: page.rows.map((row) => toPaymentResource(row, publicBaseUrl)),
    has_more: page.hasMore,
  };
}
