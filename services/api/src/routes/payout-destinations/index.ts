import { GatewayError } from "@gateway/errors";
import { Router } from "express";
import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { modeField } from "../../http/fields.js";
import { defineOperation, type Handler, mount } from "../../http/operation.js";
import { PayoutDestinationListSchema, PayoutDestinationSchema } from "../../openapi/resources.js";
import { chainParam, walletAddress } from "../payout-wallets/wallet-address.js";
import { payoutModeQuery } from "../payouts/list-payouts.js";
import { refuseApiKey } from "../payouts/payout-params.js";
import { toDestinationResource } from "./destination-resource.js";
import type { PayoutDestinations } from "./registry.js";

function registry(deps: Pick<ApiDeps, "payoutDestinations">): PayoutDestinations {
  if (!deps.payoutDestinations)
    throw new GatewayError("service_unavailable", { message: "Payout destinations are not configured." });
  return deps.payoutDestinations;
}

export const listDestinationsOperation = defineOperation({
  method: "get",
  path: "/payout-destinations",
  operationId: "listPayoutDestinations",
  summary: "The payout allow-list the signer keeps: addresses pending their delay, active, or cancelled.",
  auth: "bearer",
  query: z.object({ mode: modeField.optional().meta({ description: "live or test; both when absent." }) }),
  responses: { 200: PayoutDestinationListSchema },
  errors: { 503: "The signer's allow-list could not be reached; retry shortly." },
});

/** `GET /payout-destinations?mode=`: the allow-list the signer keeps, cancelled entries included. */
function listDestinations(
  deps: Pick<ApiDeps, "payoutDestinations">,
): Handler<typeof listDestinationsOperation> {
  return async ({ query: { mode } }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const entries = await registry(deps).list(merchantId);
    const now = new Date();
    return {
      object: "list",
      data: entries
        .filter((e) => mode === undefined || e.mode === mode)
        .map((e) => toDestinationResource(e, now)),
      has_more: false,
    };
  };
}

export const cancelDestinationOperation = defineOperation({
  method: "delete",
  path: "/payout-destinations/{chain}/{address}",
  operationId: "cancelPayoutDestination",
  summary: "Takes an address off the allow-list, pending or active; no code needed.",
  auth: "bearer",
  params: z.object({ chain: chainParam, address: z.string() }),
  query: z.object({ mode: payoutModeQuery }),
  codes: { chain: "chain_unsupported" },
  responses: { 200: PayoutDestinationSchema },
  errors: {
    404: "No such payout destination.",
    503: "The signer's allow-list could not be reached; retry shortly.",
  },
});

/**
 * `DELETE /payout-destinations/:chain/:address?mode=live`: takes the address off the allow-list,
 * pending or active. Cancelling is always safe, so it needs no code; a cancelled address needs a
 * new code (and a new delay) to return. Unknown: 404.
 */
function cancelDestination(
  deps: Pick<ApiDeps, "payoutDestinations">,
): Handler<typeof cancelDestinationOperation> {
  return async ({ params: { chain, ...params }, query }, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const address = walletAddress(chain, params.address);
    const mode = query.mode ?? "live";
    const entry = await registry(deps).cancel({ merchantId, chain, mode, address });
    if (!entry) throw new GatewayError("resource_not_found", { message: "No such payout destination." });
    return toDestinationResource(entry);
  };
}

export const payoutDestinationOperations = [listDestinationsOperation, cancelDestinationOperation] as const;

/** The merchant's payout allow-list (session JWT only, like payouts). */
export function payoutDestinationRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = [refuseApiKey, deps.sessions.require];
  mount(router, listDestinationsOperation, session, listDestinations(deps));
  mount(router, cancelDestinationOperation, session, cancelDestination(deps));
  return router;
}
