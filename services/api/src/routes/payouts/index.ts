import { payoutSubjects } from "@gateway/payouts";
import { Router } from "express";
import { sessionIdempotencyScope } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import { createPayoutHandler, createPayoutOperation } from "./create-payout.js";
import { getPayout, getPayoutOperation, listPayouts, listPayoutsOperation } from "./list-payouts.js";
import type { PayoutApprover } from "./payout-approval.js";
import { createPayoutCodes } from "./payout-codes.js";
import { payoutContext, payoutContextOperation } from "./payout-context.js";
import { refuseApiKey } from "./payout-params.js";
import {
  getSchedule,
  getScheduleOperation,
  putPayoutSchedule,
  setScheduleOperation,
} from "./payout-schedule.js";
import { requestOtpOperation, requestPayoutOtp } from "./request-otp.js";

export const payoutOperations = [
  payoutContextOperation,
  requestOtpOperation,
  getScheduleOperation,
  setScheduleOperation,
  listPayoutsOperation,
  createPayoutOperation,
  getPayoutOperation,
] as const;

/**
 * Balances and payouts, for the signed-in merchant only (session JWT; API keys are refused).
 * `approver` signs live payouts after the code check; without it live payouts are refused by the signer.
 */
export function payoutRoutes(deps: ApiDeps, options: { approver?: PayoutApprover } = {}): Router {
  const router = Router();
  const session = [refuseApiKey, deps.sessions.require];
  const idem = idempotency(deps.sql, sessionIdempotencyScope);
  const codes = createPayoutCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  const subjects = payoutSubjects(deps.bus.topology);
  mount(router, payoutContextOperation, session, payoutContext(deps));
  mount(router, requestOtpOperation, [...session, idem], requestPayoutOtp(deps, codes));
  mount(router, getScheduleOperation, session, getSchedule(deps));
  mount(router, setScheduleOperation, session, putPayoutSchedule(deps));
  mount(router, listPayoutsOperation, session, listPayouts(deps));
  mount(
    router,
    createPayoutOperation,
    [...session, idem],
    createPayoutHandler(deps, codes, subjects, options.approver),
  );
  mount(router, getPayoutOperation, session, getPayout(deps));
  return router;
}
