import { Router } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { createEmailCodes } from "../auth/email-codes.js";
import { listPayoutWallets } from "./list-payout-wallets.js";
import { requestWalletCode } from "./request-wallet-code.js";
import { setPayoutWallet } from "./set-payout-wallet.js";

/** Payout wallets, one per chain, managed from the dashboard (session JWT + e-mailed code). */
export function payoutWalletRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  const idem = idempotency(deps.sql, (_req, res) => `session:${sessionPrincipal(res).merchantId}`);
  const codes = createEmailCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  router.get("/payout-wallets", session, listPayoutWallets(deps));
  router.post("/payout-wallets/:chain/request-code", session, idem, requestWalletCode(deps, codes));
  router.put("/payout-wallets/:chain", session, setPayoutWallet(deps, codes));
  return router;
}
