import { formatAmount, parseAmount } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { getPayoutSchedule, type PayoutSchedule, setPayoutSchedule } from "@gateway/payouts";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { withMoneyParam } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { PayoutScheduleSchema } from "../../openapi/resources.js";
import { payoutModeQuery } from "./list-payouts.js";
import { payoutMode } from "./payout-params.js";

export function toScheduleResource(s: PayoutSchedule) {
  return {
    object: "payout_schedule" as const,
    mode: s.mode,
    hour: s.hour,
    enabled: s.enabled,
    minimum_amount: formatAmount(s.minimum_amount, "USDC"),
    next_run_at: s.enabled ? s.next_run_at.toISOString() : null,
    last_run_at: s.last_run_at?.toISOString() ?? null,
  };
}

export const setScheduleOperation = defineOperation({
  method: "put",
  path: "/payouts/schedule",
  operationId: "setPayoutSchedule",
  summary: "Set the hour (UTC), pause or resume, and the minimum of the daily free payout",
  auth: "bearer",
  body: z
    .strictObject({
      hour: z.number().int().min(0).max(23).meta({ description: "UTC hour of the daily payout." }),
      enabled: z.boolean().nullish().meta({ description: "true by default." }),
      minimum_amount: z.union([z.number(), z.string()]).nullish().meta({
        description: "USD; smaller balances wait for a later day.",
      }),
      mode: payoutMode,
    })
    .meta({ id: "PayoutScheduleRequest" }),
  codes: { minimum_amount: "amount_invalid" },
  responses: { 200: PayoutScheduleSchema },
});

/**
 * `PUT /payouts/schedule {hour, enabled, minimum_amount?, mode?}`: the daily free payout, at
 * `hour` UTC, of each chain's available USDC and USDT to its linked payout wallet. No code is
 * asked: the wallets it pays were each linked with one.
 */
export function putPayoutSchedule({ sql }: Pick<ApiDeps, "sql">): Handler<typeof setScheduleOperation> {
  return async ({ body }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const minimum =
      body.minimum_amount === undefined || body.minimum_amount === null || body.minimum_amount === 0
        ? 0n
        : withMoneyParam("minimum_amount", () => parseAmount(body.minimum_amount, "USDC"));
    const schedule = await setPayoutSchedule(sql, {
      merchantId,
      mode: body.mode ?? "live",
      hour: body.hour,
      enabled: body.enabled ?? true,
      minimumAmount: minimum,
    });
    return toScheduleResource(schedule);
  };
}

export const getScheduleOperation = defineOperation({
  method: "get",
  path: "/payouts/schedule",
  operationId: "getPayoutSchedule",
  summary: "The daily scheduled payout",
  auth: "bearer",
  query: z.object({ mode: payoutModeQuery }),
  responses: { 200: PayoutScheduleSchema },
  errors: { 404: "No payout schedule is set." },
});

/** `GET /payouts/schedule?mode=`: the schedule, or 404 when none was set. */
export function getSchedule({ sql }: Pick<ApiDeps, "sql">): Handler<typeof getScheduleOperation> {
  return async ({ query }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const schedule = await getPayoutSchedule(sql, { merchantId, mode: query.mode ?? "live" });
    if (!schedule) throw new GatewayError("resource_not_found", { message: "No payout schedule is set." });
    return toScheduleResource(schedule);
  };
}
