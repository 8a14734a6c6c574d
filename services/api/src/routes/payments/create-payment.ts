import { randomUUID } from "node:crypto";
import { CURRENCIES } from "@gateway/contracts";
import { PaymentSchema } from "@gateway/contracts/payment-resource";
import { retryWhileUnavailable } from "@gateway/db";
import {
  type Currency,
  checkPaymentLimits,
  computeFee,
  initialPaymentState,
  isPriced,
  type Mode,
  type PaymentState,
  parseAmount,
  parseCurrency,
  pricesWith,
} from "@gateway/domain";
import { type InsertPayment, insertPayment, insertPayments, toPaymentResource } from "@gateway/payments";
import { z } from "zod";
import { apiKeyPrincipal } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { batched } from "../../http/batched.js";
import { httpUrl, parsedBy, withMoneyParam } from "../../http/fields.js";
import { idempotencyClaim, idempotentUuid } from "../../http/idempotency.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { usdRate } from "../../pricing.js";

export const DEFAULT_EXPIRES_IN_SECONDS = 30 * 60;

export const CreatePaymentRequest = z
  .strictObject({
    currency: parsedBy(z.string(), parseCurrency, z.enum(CURRENCIES)).meta({
      description: "USD, USDC, USDT, SOL or SUI; case-insensitive.",
    }),
    amount: z.union([z.number(), z.string()]).meta({
      description: "A JSON number (or decimal string), at most the currency's decimals.",
    }),
    redirect_url: httpUrl.nullish(),
    description: z.string().max(1000).nullish(),
    expires_in: z
      .number()
      .int()
      .min(300)
      .max(86_400)
      .nullish()
      .meta({ description: "Seconds; 1,800 by default." }),
  })
  .meta({ id: "CreatePaymentRequest" });

export const createPaymentOperation = defineOperation({
  method: "post",
  path: "/payments",
  operationId: "createPayment",
  summary: "Create a payment",
  auth: "apiKey",
  idempotent: true,
  body: CreatePaymentRequest,
  codes: { currency: "currency_unsupported", amount: "amount_invalid" },
  responses: { 201: PaymentSchema },
  errors: { 409: "Idempotency-Key reused with another body." },
});

/** `POST /payments` (docs/api-reference.md); validity, limits and fee as docs/payment-lifecycle.md sets them. */
export function createPayment({
  sql,
  config,
  prices: priceService,
}: Pick<ApiDeps, "sql" | "config" | "prices">): Handler<typeof createPaymentOperation> {
  // Payments created while the previous insert is in flight share the next one: under load one
  // commit serves many requests; each still answers only once its row is committed.
  const insert = batched((inputs: InsertPayment[]) => insertPayments(sql, inputs));
  return async ({ body }, _req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    const { currency } = body;
    const amount = withMoneyParam("amount", () => parseAmount(body.amount, currency));
    const redirectUrl = body.redirect_url ?? null;
    const description = body.description ?? null;
    // With an Idempotency-Key the id is the key's: a retry that takes over the claim of an API
    // process that died after inserting gets that payment back instead of a second one.
    const claim = idempotencyClaim(res);
    const state = newPaymentState(priceService, {
      id: claim ? idempotentUuid("payment", claim) : randomUUID(),
      mode,
      currency,
      amount,
      expiresInSeconds: body.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS,
    });
    const input = { state, merchantId, description, redirectUrl };
    // A failed multi-row insert commits nothing: each of its payments is then tried alone, so a
    // bad row fails only its own request.
    // The id is fixed before the first attempt and the insert keeps an existing row, so an
    // attempt cut off by a database restart (committed or not) is simply made again.
    const row = await retryWhileUnavailable(() => insert(input).catch(() => insertPayment(sql, input)));
    if (row.merchant_id !== merchantId) throw new Error(`payment id ${row.id} belongs to another merchant`);
    return toPaymentResource(row, config.PUBLIC_BASE_URL);
  };
}

/**
 * A new payment's state: its limits checked and its fee fixed at today's price. Only SOL and SUI
 * payments need a price (limits and the creation fee); every bad input has been answered with
 * its 400 before a missing price can answer 503. Payment links open payments through it too.
 */
export function newPaymentState(
  priceService: ApiDeps["prices"],
  input: { id: string; mode: Mode; currency: Currency; amount: bigint; expiresInSeconds: number },
): PaymentState {
  const { mode, currency, amount } = input;
  const rate = isPriced(currency) ? usdRate(priceService, mode, currency) : null;
  const prices = pricesWith(isPriced(currency) ? currency : null, rate);
  withMoneyParam("amount", () => checkPaymentLimits(amount, currency, prices));
  const fee = withMoneyParam("amount", () => computeFee(amount, currency, prices));
  return initialPaymentState({
    id: input.id,
    mode,
    currency,
    amount,
    fee,
    usdRate: rate,
    // Whole milliseconds: the ISO strings we return carry exactly three decimals.
    expiresAt: Date.now() + input.expiresInSeconds * 1000,
  });
}
