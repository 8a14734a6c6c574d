import { payoutSubjects } from "@gateway/ledger";
import { Router } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { createPayoutHandler } from "./create-payout.js";
import { getPayout, listPayouts } from "./list-payouts.js";
import type { PayoutApprover } from "./payout-approval.js";
import { createPayoutCodes } from "./payout-codes.js";
import { payoutContext } from "./payout-context.js";
import { refuseApiKey } from "./payout-params.js";
import { getSchedule, putPayoutSchedule } from "./payout-schedule.js";
import { requestPayoutOtp } from "./request-otp.js";

/**
 * Balances and payouts, for the signed-in merchant only (session JWT; API keys are refused).
 * `approver` signs live payouts after the code check; without it live payouts are refused by the signer.
 */
export function payoutRoutes(deps: ApiDeps, options: { approver?: PayoutApprover } = {}): Router {
  const router = Router();
  const session = [refuseApiKey, deps.sessions.require];
  const idem = idempotency(deps.sql, (_req, res) => `session:${sessionPrincipal(res).merchantId}`);
  const codes = createPayoutCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  const subjects = payoutSubjects(deps.bus.topology);
  router.get("/payouts/context", session, payoutContext(deps));
  router.post("/payouts/request-otp", session, idem, requestPayoutOtp(deps, codes));
  router.get("/payouts/schedule", session, getSchedule(deps));
  router.put("/payouts/schedule", session, putPayoutSchedule(deps));
  router.get("/payouts", session, listPayouts(deps));
  router.post("/payouts", session, idem, createPayoutHandler(deps, codes, subjects, options.approver));
  router.get("/payouts/:id", session, getPayout(deps));
  return router;
}
