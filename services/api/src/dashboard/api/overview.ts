// The dashboard's home (volume per day, payments by status, balances, what failed), its search,
// and a payment's on-chain transactions for its timeline.
import { PAYMENT_STATUSES } from "@gateway/contracts";
import { formatAmount, formatMicroUsd } from "@gateway/domain";
import { merchantBalances } from "@gateway/ledger";
import {
  countByStatus,
  failedPayments,
  paymentTransactions,
  searchPayments,
  stateOf,
  toPaymentResource,
  volumeByDay,
} from "@gateway/payments";
import { recentFailedPayouts } from "@gateway/payouts";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { modeField, paymentIdParams } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import {
  DashboardOverviewSchema,
  PaymentListSchema,
  PaymentTransactionListSchema,
} from "../../openapi/resources.js";
import { ownPayment } from "../../routes/payments/read-payments.js";
import { recentFailedDeliveries } from "../../routes/webhooks/webhook-store.js";

/** The home page's window, in days, ending today (UTC). */
export const OVERVIEW_DAYS = 30;
const FAILURES = 10;
const DAY_MS = 86_400_000;

const modeQuery = z.object({ mode: modeField.optional().meta({ description: "live (default) or test." }) });

export const dashboardOverviewOperations = {
  overview: defineOperation({
    method: "get",
    path: "/dashboard/api/overview",
    operationId: "dashboardOverview",
    summary: "The home page: volume per day over 30 days, payments by status, balances, newest failures",
    auth: "bearer",
    query: modeQuery,
    responses: { 200: DashboardOverviewSchema },
  }),
  search: defineOperation({
    method: "get",
    path: "/dashboard/api/search",
    operationId: "dashboardSearch",
    summary: "Payments found by payment id, deposit address or transaction id, newest first",
    auth: "bearer",
    query: modeQuery.extend({
      q: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .meta({ description: "A payment id, deposit address or transaction id." }),
    }),
    responses: { 200: PaymentListSchema },
  }),
  transactions: defineOperation({
    method: "get",
    path: "/dashboard/api/payments/{id}/transactions",
    operationId: "dashboardPaymentTransactions",
    summary: "A payment's on-chain transactions: deposits, the sweep, refunds",
    auth: "bearer",
    params: paymentIdParams,
    responses: { 200: PaymentTransactionListSchema },
    errors: { 404: "No such payment (or another merchant's)." },
  }),
};

type Ops = typeof dashboardOverviewOperations;

export function dashboardOverviewReads({ sql, config }: Pick<ApiDeps, "sql" | "config">): {
  overview: Handler<Ops["overview"]>;
  search: Handler<Ops["search"]>;
  transactions: Handler<Ops["transactions"]>;
} {
  return {
    overview: async ({ query }, _req, res) => {
      const owner = { merchantId: sessionPrincipal(res).merchantId, mode: query.mode ?? "live" };
      const today = new Date(new Date().toISOString().slice(0, 10));
      const since = new Date(today.getTime() - (OVERVIEW_DAYS - 1) * DAY_MS);
      const [volume, statuses, balances, payments, payouts, deliveries] = await Promise.all([
        volumeByDay(sql, owner, since),
        countByStatus(sql, owner, since),
        merchantBalances(sql, owner.merchantId, owner.mode),
        failedPayments(sql, owner, FAILURES),
        recentFailedPayouts(sql, owner, FAILURES),
        recentFailedDeliveries(sql, owner, FAILURES),
      ]);
      const byDay = new Map(volume.map((v) => [v.day, v]));
      const failures = [
        ...payments.map((p) => ({
          kind: "payment" as const,
          id: p.id,
          occurred_at: p.updated_at.toISOString(),
          summary: `Payment of ${formatAmount(p.amount, stateOf(p).currency)} ${p.currency} failed; we are looking into it.`,
        })),
        ...payouts.map((p) => ({
          kind: "payout" as const,
          id: p.id,
          occurred_at: (p.completed_at ?? p.updated_at).toISOString(),
          summary: `Payout of ${formatAmount(p.amount, p.coin)} ${p.coin} failed${p.failure_reason ? `: ${p.failure_reason}` : ""}.`,
        })),
        ...deliveries.map((d) => ({
          kind: "webhook_delivery" as const,
          id: d.endpoint_id,
          occurred_at: (d.last_attempt_at ?? d.created_at).toISOString(),
          summary: `${d.event_type} (${d.event_id}) could not be delivered to ${d.url} after ${d.attempts} attempts.`,
        })),
      ]
        .sort((a, b) => b.occurred_at.localeCompare(a.occurred_at))
        .slice(0, FAILURES);
      return {
        object: "dashboard_overview" as const,
        mode: owner.mode,
        volume: Array.from({ length: OVERVIEW_DAYS }, (_, i) => {
          const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
          const v = byDay.get(day);
          return { day, completed: v?.completed ?? 0, usd_value: formatMicroUsd(v?.usdMicros ?? 0n) };
        }),
        by_status: Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, statuses[s] ?? 0])) as Record<
          (typeof PAYMENT_STATUSES)[number],
          number
        >,
        balances: balances.map((b) => ({
          chain: b.chain,
          coin: b.coin,
          available: formatAmount(b.available, b.coin),
          pending: formatAmount(b.pending, b.coin),
        })),
        failures,
      };
    },
    search: async ({ query }, _req, res) => {
      const owner = { merchantId: sessionPrincipal(res).merchantId, mode: query.mode ?? "live" };
      const rows = await searchPayments(sql, owner, query.q, 25);
      return {
        object: "list" as const,
        data: rows.map((row) => toPaymentResource(row, config.PUBLIC_BASE_URL)),
        has_more: false,
      };
    },
    transactions: async ({ params }, _req, res) => {
      const row = await ownPayment(sql, { id: params.id, merchantId: sessionPrincipal(res).merchantId });
      return { object: "list" as const, data: paymentTransactions(stateOf(row)), has_more: false };
    },
  };
}
