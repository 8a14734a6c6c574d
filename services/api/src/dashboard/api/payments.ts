import type { EventType } from "@gateway/contracts";
import { PaymentStatusSchema } from "@gateway/contracts/payment-resource";
import { toPaymentResource } from "@gateway/payments";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { cursor, modeField, pageLimit } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { DashboardPaymentSchema, PaymentListSchema } from "../../openapi/resources.js";
import { ownPayment, paymentPage } from "../../routes/payments/read-payments.js";

/** The dashboard's reads of payments, behind the session JWT. */
export const dashboardPaymentOperations = {
  list: defineOperation({
    method: "get",
    path: "/dashboard/api/payments",
    operationId: "dashboardListPayments",
    summary: "The signed-in merchant's payments of one mode, newest first",
    auth: "bearer",
    query: z.object({
      mode: modeField.optional().meta({ description: "live (default) or test." }),
      status: PaymentStatusSchema.optional(),
      limit: pageLimit,
      starting_after: cursor,
    }),
    responses: { 200: PaymentListSchema },
  }),
  get: defineOperation({
    method: "get",
    path: "/dashboard/api/payments/{id}",
    operationId: "dashboardGetPayment",
    summary: "A payment and its events, oldest first (the timeline)",
    auth: "bearer",
    params: z.object({ id: z.string().meta({ description: "Payment id." }) }),
    responses: { 200: DashboardPaymentSchema },
    errors: { 404: "No such payment (or another merchant's)." },
  }),
};

/**
 * `GET /dashboard/api/payments?mode=&status=&limit=&starting_after=`: the signed-in merchant's
 * payments of one mode (live unless asked), newest first, in the merchant API's shape; and
 * `GET /dashboard/api/payments/:id`: the payment and its events, oldest first (the timeline).
 */
export function dashboardPaymentReads({ sql, config }: Pick<ApiDeps, "sql" | "config">): {
  list: Handler<typeof dashboardPaymentOperations.list>;
  get: Handler<typeof dashboardPaymentOperations.get>;
} {
  return {
    list: async ({ query }, _req, res) => {
      const { merchantId } = sessionPrincipal(res);
      return paymentPage(sql, config.PUBLIC_BASE_URL, { merchantId, mode: query.mode ?? "live" }, query);
    },
    get: async ({ params }, _req, res) => {
      const { merchantId } = sessionPrincipal(res);
      const row = await ownPayment(sql, { id: params.id, merchantId });
      const events = await sql<{ id: string; type: EventType; created_at: Date; data: unknown }[]>`
        select id, type, created_at, data from events
        where payment_id = ${row.id} and merchant_id = ${merchantId}
        order by seq`;
      return {
        payment: toPaymentResource(row, config.PUBLIC_BASE_URL),
        events: events.map((e) => ({
          id: e.id,
          object: "event" as const,
          type: e.type,
          created_at: e.created_at.toISOString(),
          data: e.data,
        })),
      };
    },
  };
}
