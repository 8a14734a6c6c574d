import { formatAmount, parseAmount } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { getPayoutSchedule, type PayoutSchedule, setPayoutSchedule } from "@gateway/ledger";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown, required, withMoneyParam } from "../../http/params.js";
import { modeParam } from "./payout-params.js";

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

/**
 * `PUT /payouts/schedule {hour, enabled, minimum_amount?, mode?}`: the daily free payout, at
 * `hour` UTC, of each chain's available USDC and USDT to its linked payout wallet. No code is
 * asked: the wallets it pays were each linked with one.
 */
export function putPayoutSchedule({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const body = bodyObject(req.body);
    rejectUnknown(body, ["hour", "enabled", "minimum_amount", "mode"]);
    const hour = required<unknown>(body, "hour");
    if (typeof hour !== "number" || !Number.isInteger(hour) || hour < 0 || hour > 23) {
      throw new GatewayError("parameter_invalid", {
        param: "hour",
        message: "hour must be an integer from 0 to 23 (UTC).",
      });
    }
    const enabled = body.enabled ?? true;
    if (typeof enabled !== "boolean") {
      throw new GatewayError("parameter_invalid", {
        param: "enabled",
        message: "enabled must be true or false.",
      });
    }
    const minimum =
      body.minimum_amount === undefined || body.minimum_amount === null || body.minimum_amount === 0
        ? 0n
        : withMoneyParam("minimum_amount", () => parseAmount(body.minimum_amount, "USDC"));
    const schedule = await setPayoutSchedule(sql, {
      merchantId,
      mode: modeParam(body.mode),
      hour,
      enabled,
      minimumAmount: minimum,
    });
    res.json(toScheduleResource(schedule));
  };
}

/** `GET /payouts/schedule?mode=`: the schedule, or 404 when none was set. */
export function getSchedule({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const schedule = await getPayoutSchedule(sql, merchantId, modeParam(req.query.mode));
    if (!schedule) throw new GatewayError("resource_not_found", { message: "No payout schedule is set." });
    res.json(toScheduleResource(schedule));
  };
}
