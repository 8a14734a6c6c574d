import { GatewayError } from "@gateway/errors";
import { type RequestHandler, Router } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { chainParam, walletAddress } from "../payout-wallets/wallet-address.js";
import { modeParam, refuseApiKey } from "../payouts/payout-params.js";
import { toDestinationResource } from "./destination-resource.js";
import type { PayoutDestinations } from "./registry.js";

function registry(deps: Pick<ApiDeps, "payoutDestinations">): PayoutDestinations {
  if (!deps.payoutDestinations)
    throw new GatewayError("service_unavailable", { message: "Payout destinations are not configured." });
  return deps.payoutDestinations;
}

/** `GET /payout-destinations?mode=`: the allow-list the signer keeps, cancelled entries included. */
function listDestinations(deps: Pick<ApiDeps, "payoutDestinations">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const mode = req.query.mode === undefined ? undefined : modeParam(req.query.mode);
    const entries = await registry(deps).list(merchantId);
    const now = new Date();
    res.json({
      object: "list",
      data: entries
        .filter((e) => mode === undefined || e.mode === mode)
        .map((e) => toDestinationResource(e, now)),
      has_more: false,
    });
  };
}

/**
 * `DELETE /payout-destinations/:chain/:address?mode=live`: takes the address off the allow-list,
 * pending or active. Cancelling is always safe, so it needs no code; a cancelled address needs a
 * new code (and a new delay) to return. Unknown: 404.
 */
function cancelDestination(deps: Pick<ApiDeps, "payoutDestinations">): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const chain = chainParam(req.params.chain);
    const address = walletAddress(chain, req.params.address);
    const mode = modeParam(req.query.mode);
    const entry = await registry(deps).cancel({ merchantId, chain, mode, address });
    if (!entry) throw new GatewayError("resource_not_found", { message: "No such payout destination." });
    res.json(toDestinationResource(entry));
  };
}

/** The merchant's payout allow-list (session JWT only, like payouts). */
export function payoutDestinationRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = [refuseApiKey, deps.sessions.require];
  router.get("/payout-destinations", session, listDestinations(deps));
  router.delete("/payout-destinations/:chain/:address", session, cancelDestination(deps));
  return router;
}
