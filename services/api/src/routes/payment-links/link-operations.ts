// Payment links by API key (`/payment-links`, the key's mode) and from the dashboard
// (`/dashboard/api/payment-links`, the session; `is_test` and `mode` say which mode).
import { randomUUID } from "node:crypto";
import { CURRENCIES } from "@gateway/contracts";
import { type Mode, parseAmount, parseCurrency } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { deactivatePaymentLink, insertPaymentLink, listPaymentLinks } from "@gateway/payment-links";
import type { Request, Response } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { cursor, httpUrl, modeField, pageLimit, parsedBy, withMoneyParam } from "../../http/fields.js";
import { defineOperation } from "../../http/operation.js";
import { newPaymentState } from "../payments/create-payment.js";
import { PaymentLinkListSchema, PaymentLinkSchema, toPaymentLinkResource } from "./link-resource.js";

const linkFields = {
  currency: parsedBy(z.string(), parseCurrency, z.enum(CURRENCIES)).meta({
    description: "USD, USDC, USDT, SOL or SUI; case-insensitive.",
  }),
  amount: z.union([z.number(), z.string()]).meta({
    description: "A JSON number (or decimal string), at most the currency's decimals.",
  }),
  description: z.string().max(1000).nullish(),
  redirect_url: httpUrl.nullish(),
};
const codes = { currency: "currency_unsupported", amount: "amount_invalid" } as const;
const linkParams = z.object({ id: z.string().max(64).meta({ description: "`plink_…`" }) });
const NOT_FOUND = "No such payment link (or it belongs to another merchant or mode).";
const listQuery = { limit: pageLimit, starting_after: cursor };

export const merchantLinkOperations = {
  create: defineOperation({
    method: "post",
    path: "/payment-links",
    operationId: "createPaymentLink",
    summary: "Create a payment link: a reusable URL for a fixed amount, in the key's mode",
    auth: "apiKey",
    idempotent: true,
    body: z.strictObject(linkFields).meta({ id: "CreatePaymentLinkRequest" }),
    codes,
    responses: { 201: PaymentLinkSchema },
    errors: { 409: "Idempotency-Key reused with another body." },
  }),
  list: defineOperation({
    method: "get",
    path: "/payment-links",
    operationId: "listPaymentLinks",
    summary: "The key's mode's payment links, newest first, with their payment counts",
    auth: "apiKey",
    query: z.object(listQuery),
    responses: { 200: PaymentLinkListSchema },
  }),
  deactivate: defineOperation({
    method: "post",
    path: "/payment-links/{id}/deactivate",
    operationId: "deactivatePaymentLink",
    summary: "Deactivate a payment link: visitors get a page saying so, and no payment",
    auth: "apiKey",
    params: linkParams,
    responses: { 200: PaymentLinkSchema },
    errors: { 404: NOT_FOUND },
  }),
};

export const dashboardLinkOperations = {
  create: defineOperation({
    method: "post",
    path: "/dashboard/api/payment-links",
    operationId: "dashboardCreatePaymentLink",
    summary: "Create a payment link from the dashboard",
    auth: "bearer",
    idempotent: true,
    body: z
      .strictObject({
        ...linkFields,
        is_test: z.boolean().meta({ description: "Which mode the link is of." }),
      })
      .meta({ id: "DashboardCreatePaymentLinkRequest" }),
    codes,
    responses: { 201: PaymentLinkSchema },
    errors: { 409: "Idempotency-Key reused with another body." },
  }),
  list: defineOperation({
    method: "get",
    path: "/dashboard/api/payment-links",
    operationId: "dashboardListPaymentLinks",
    summary: "The signed-in merchant's payment links of one mode, newest first",
    auth: "bearer",
    query: z.object({
      mode: modeField.optional().meta({ description: "live (default) or test." }),
      ...listQuery,
    }),
    responses: { 200: PaymentLinkListSchema },
  }),
  deactivate: defineOperation({
    method: "post",
    path: "/dashboard/api/payment-links/{id}/deactivate",
    operationId: "dashboardDeactivatePaymentLink",
    summary: "Deactivate a payment link from the dashboard",
    auth: "bearer",
    params: linkParams,
    responses: { 200: PaymentLinkSchema },
    errors: { 404: NOT_FOUND },
  }),
};

/** Who is asking: a merchant, and the one mode they act in (a key's), or both (the dashboard). */
export interface LinkCaller {
  merchantId(res: Response): string;
  /** The mode of a new link, from the key or the request. */
  modeFor(res: Response, body: { is_test?: boolean }): Mode;
  /** The mode a listing shows, or a deactivation may reach (undefined: either). */
  scope(res: Response, query: { mode?: Mode | undefined }): Mode | undefined;
}

type Deps = Pick<ApiDeps, "sql" | "config" | "prices">;
type LinkAnswer = z.input<typeof PaymentLinkSchema>;
/** Both operations' bodies: the dashboard's adds `is_test`. */
type LinkBody = z.output<typeof merchantLinkOperations.create.body> & { is_test?: boolean };
type ListQuery = { limit?: number | undefined; starting_after?: string | undefined; mode?: Mode | undefined };

export function createPaymentLink(deps: Deps, caller: LinkCaller) {
  return async ({ body }: { body: LinkBody }, _req: Request, res: Response): Promise<LinkAnswer> => {
    const mode = caller.modeFor(res, body);
    const amount = withMoneyParam("amount", () => parseAmount(body.amount, body.currency));
    // Held to a payment's limits now, as each payment it opens will be.
    newPaymentState(deps.prices, {
      id: randomUUID(),
      mode,
      currency: body.currency,
      amount,
      expiresInSeconds: 1,
    });
    const row = await insertPaymentLink(deps.sql, {
      merchantId: caller.merchantId(res),
      mode,
      currency: body.currency,
      amount,
      description: body.description ?? null,
      redirectUrl: body.redirect_url ?? null,
    });
    return toPaymentLinkResource(row, deps.config.PUBLIC_BASE_URL);
  };
}

export function listLinks(deps: Deps, caller: LinkCaller) {
  return async ({ query }: { query: ListQuery }, _req: Request, res: Response) => {
    const page = await listPaymentLinks(deps.sql, {
      merchantId: caller.merchantId(res),
      mode: caller.scope(res, query) ?? "live",
      limit: query.limit ?? 10,
      startingAfter: query.starting_after,
    });
    return {
      object: "list" as const,
      data: page.rows.map((row) => toPaymentLinkResource(row, deps.config.PUBLIC_BASE_URL)),
      has_more: page.hasMore,
    };
  };
}

export function deactivateLink(deps: Deps, caller: LinkCaller) {
  return async (
    { params }: { params: { id: string } },
    _req: Request,
    res: Response,
  ): Promise<LinkAnswer> => {
    const row = await deactivatePaymentLink(deps.sql, {
      id: params.id,
      merchantId: caller.merchantId(res),
      mode: caller.scope(res, {}),
    });
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    return toPaymentLinkResource(row, deps.config.PUBLIC_BASE_URL);
  };
}
