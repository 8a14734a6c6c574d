import { randomUUID } from "node:crypto";
import { retryWhileUnavailable } from "@gateway/db";
import {
  checkPaymentLimits,
  computeFee,
  initialPaymentState,
  isPriced,
  parseAmount,
  parseCurrency,
} from "@gateway/domain";
import { type InsertPayment, insertPayment, insertPayments, toPaymentResource } from "@gateway/payments";
import type { RequestHandler } from "express";
import { apiKeyPrincipal } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { batched } from "../../http/batched.js";
import { idempotencyClaim, idempotentUuid } from "../../http/idempotency.js";
import { bodyObject } from "../../http/json-body.js";
import {
  httpUrl,
  optionalInteger,
  optionalString,
  rejectUnknown,
  required,
  withMoneyParam,
} from "../../http/params.js";
import { pricesWith, usdRate } from "../../pricing.js";

const FIELDS = ["amount", "currency", "redirect_url", "description", "expires_in"] as const;
export const DEFAULT_EXPIRES_IN_SECONDS = 30 * 60;

/** `POST /payments` (docs/api-reference.md); validity, limits and fee as docs/payment-lifecycle.md sets them. */
export function createPayment({
  sql,
  config,
  prices: priceService,
}: Pick<ApiDeps, "sql" | "config" | "prices">): RequestHandler {
  // Payments created while the previous insert is in flight share the next one: under load one
  // commit serves many requests; each still answers only once its row is committed.
  const insert = batched((inputs: InsertPayment[]) => insertPayments(sql, inputs));
  return async (req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    const body = bodyObject(req.body);
    rejectUnknown(body, FIELDS);
    const currency = withMoneyParam("currency", () => parseCurrency(required(body, "currency")));
    const amount = withMoneyParam("amount", () => parseAmount(required(body, "amount"), currency));
    const redirectUrl = httpUrl(optionalString(body, "redirect_url", 2048), "redirect_url");
    const description = optionalString(body, "description", 1000);
    const expiresIn = optionalInteger(body, "expires_in", 300, 86_400) ?? DEFAULT_EXPIRES_IN_SECONDS;
    // Only SOL and SUI payments need a price (limits and the creation fee); every bad input has
    // been answered with its 400 before a missing price can answer 503.
    const rate = isPriced(currency) ? usdRate(priceService, mode, currency) : null;
    const prices = pricesWith(isPriced(currency) ? currency : null, rate);
    withMoneyParam("amount", () => checkPaymentLimits(amount, currency, prices));
    const fee = withMoneyParam("amount", () => computeFee(amount, currency, prices));

    // With an Idempotency-Key the id is the key's: a retry that takes over the claim of an API
    // process that died after inserting gets that payment back instead of a second one.
    const claim = idempotencyClaim(res);
    const state = initialPaymentState({
      id: claim ? idempotentUuid("payment", claim) : randomUUID(),
      mode,
      currency,
      amount,
      fee,
      usdRate: rate,
      // Whole milliseconds: the ISO strings we return carry exactly three decimals.
      expiresAt: Date.now() + expiresIn * 1000,
    });
    const input = { state, merchantId, description, redirectUrl };
    // A failed multi-row insert commits nothing: each of its payments is then tried alone, so a
    // bad row fails only its own request.
    // The id is fixed before the first attempt and the insert keeps an existing row, so an
    // attempt cut off by a database restart (committed or not) is simply made again.
    const row = await retryWhileUnavailable(() => insert(input).catch(() => insertPayment(sql, input)));
    if (row.merchant_id !== merchantId) throw new Error(`payment id ${row.id} belongs to another merchant`);
    res.status(201).json(toPaymentResource(row, config.PUBLIC_BASE_URL));
  };
}
