import { newId } from "@gateway/db";
import { parseAmount } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import {
  InsufficientBalanceError,
  MANUAL_PAYOUT_NETWORK_FEE,
  merchantBalances,
  type PayoutSubjects,
  createPayout as recordPayout,
  toPayoutResource,
} from "@gateway/ledger";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown, required, withMoneyParam } from "../../http/params.js";
import { throttle } from "../auth/throttle.js";
import { resolveDestination } from "./destination.js";
import { approvePayout, type PayoutApprover } from "./payout-approval.js";
import type { PayoutCodes } from "./payout-codes.js";
import { coinParam, modeParam } from "./payout-params.js";

const TRIES_PER_TEN_MINUTES = { limit: 20, windowSeconds: 600 };

const insufficient = (available: bigint) =>
  new GatewayError("insufficient_balance", {
    param: "amount",
    message: `The amount exceeds the available balance (${available} base units).`,
  });

/**
 * `POST /payouts {chain, coin_symbol, amount, destination_address?, otp, mode?}` → 201 with the
 * payout, status `pending`. The code must be the one mailed for this mode, chain and destination.
 * Spending the code, recording the payout, reserving its amount (so `available` drops at once)
 * and asking settlement to execute it are one transaction: all of it happens or none.
 * A payout requested by hand is charged its chain's fixed network fee out of `amount`. A live
 * payout carries the API's signed approval of its intent, made here, after the code was checked.
 */
export function createPayoutHandler(
  { sql, limiter }: Pick<ApiDeps, "sql" | "limiter">,
  codes: PayoutCodes,
  subjects: PayoutSubjects,
  approver?: PayoutApprover,
): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const body = bodyObject(req.body);
    rejectUnknown(body, ["chain", "coin_symbol", "amount", "destination_address", "otp", "mode"]);
    required<unknown>(body, "chain");
    const coin = coinParam(body.coin_symbol);
    const amount = withMoneyParam("amount", () => parseAmount(required<unknown>(body, "amount"), coin));
    const otp = required<unknown>(body, "otp");
    const mode = modeParam(body.mode);
    const { chain, destination } = await resolveDestination(sql, merchantId, body);
    const networkFee = MANUAL_PAYOUT_NETWORK_FEE[chain];
    if (amount <= networkFee) {
      throw new GatewayError("amount_too_small", {
        param: "amount",
        message: `A ${chain} payout must be more than its network fee of ${networkFee} base units.`,
      });
    }
    // Checked before the code, so a short balance does not cost a try; checked again under lock.
    const balance = (await merchantBalances(sql, merchantId, mode)).find(
      (b) => b.chain === chain && b.coin === coin,
    );
    if ((balance?.available ?? 0n) < amount) throw insufficient(balance?.available ?? 0n);
    await throttle(limiter, [[`payout-otp:account:${merchantId}`, TRIES_PER_TEN_MINUTES]]);
    try {
      const id = newId("po");
      const row = await codes.consume(merchantId, { mode, chain, destination }, otp, (tx) =>
        recordPayout(tx, subjects, {
          id,
          approval:
            mode === "live" && approver
              ? (approvePayout(approver, {
                  id,
                  mode,
                  chain,
                  coin,
                  netAmount: amount - networkFee,
                  destination,
                }) ?? null)
              : null,
          merchantId,
          mode,
          chain,
          coin,
          amount,
          networkFee,
          destination,
          kind: "manual",
        }),
      );
      res.status(201).json(toPayoutResource(row));
    } catch (err) {
      // A concurrent payout took the balance first; the code stays live (the transaction rolled back).
      if (err instanceof InsufficientBalanceError) throw insufficient(err.available);
      throw err;
    }
  };
}
