import { Router } from "express";
import { sessionIdempotencyScope } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import { createEmailCodes } from "../auth/email-codes.js";
import { listPayoutWallets, listPayoutWalletsOperation } from "./list-payout-wallets.js";
import { requestWalletCode, requestWalletCodeOperation } from "./request-wallet-code.js";
import { setPayoutWallet, setPayoutWalletOperation } from "./set-payout-wallet.js";

export const payoutWalletOperations = [
  listPayoutWalletsOperation,
  requestWalletCodeOperation,
  setPayoutWalletOperation,
] as const;

/** Payout wallets, one per chain, managed from the dashboard (session JWT + e-mailed code). */
export function payoutWalletRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  const idem = idempotency(deps.sql, sessionIdempotencyScope);
  const codes = createEmailCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  mount(router, listPayoutWalletsOperation, [session], listPayoutWallets(deps));
  mount(router, requestWalletCodeOperation, [session, idem], requestWalletCode(deps, codes));
  mount(router, setPayoutWalletOperation, [session], setPayoutWallet(deps, codes));
  return router;
}
