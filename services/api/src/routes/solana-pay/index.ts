// Solana Pay transaction requests (https://docs.solanapay.com/spec#specification-transaction-request):
// a wallet scans `solana:<this URL>`, GETs the label and icon to show, then POSTs the payer's
// account and signs the transaction it is given. Errors keep the API's error body and add the
// specification's top-level `message`, which wallets show as it is.

import { GatewayError } from "@gateway/errors";
import { findPayment, isUuid, stateOf } from "@gateway/payments";
import { PublicKey } from "@solana/web3.js";
import { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { pageAssets } from "../../front-end/assets.js";
import { paymentIdParams } from "../../http/fields.js";
import { addressedBy, mount } from "../../http/operation.js";
import { WalletErrorSchema } from "../../openapi/resources.js";
import { amountText, payableBySolanaPay } from "./payable.js";
import { payerTransaction } from "./payer-transaction.js";

const NOT_FOUND = "No such payment.";
const transactionRequest = addressedBy(paymentIdParams, NOT_FOUND);
const SPEC_ERRORS =
  " Errors carry the API's error body and, as the Solana Pay specification asks, the same text as a top-level `message` that wallets show.";

export const getTransactionRequestOperation = transactionRequest({
  method: "get",
  path: "/solana-pay/tx/{id}",
  operationId: "getSolanaPayTransactionRequest",
  summary: "Solana Pay transaction request: the label and icon a wallet shows",
  description: `The GET of a Solana Pay transaction request (a wallet scans \`solana:\` and this URL, URL-encoded).${SPEC_ERRORS}`,
  auth: "none",
  errorSchema: WalletErrorSchema,
  responses: {
    200: z
      .object({
        label: z.string().meta({ description: "The merchant's name." }),
        icon: z.string().meta({ description: "An absolute URL of an SVG icon." }),
      })
      .meta({ id: "SolanaPayLabel" }),
  },
});

export const postTransactionRequestOperation = transactionRequest({
  method: "post",
  path: "/solana-pay/tx/{id}",
  operationId: "postSolanaPayTransactionRequest",
  summary: "Solana Pay transaction request: the transaction that pays the payment from `account`",
  description:
    "The POST of a Solana Pay transaction request. Answers a transaction built by us and not signed by " +
    "us: `account` is its fee payer and only signer, and it moves exactly what is still due to the " +
    "payment's Solana deposit address (SOL: a system transfer; USDC/USDT: the deposit's associated token " +
    "account created if missing, paid by `account`, then `TransferChecked` from `account`'s associated " +
    `token account).${SPEC_ERRORS}`,
  auth: "none",
  body: z
    .strictObject({
      account: z.string().max(64).meta({ description: "The payer's public key (base58)." }),
    })
    .meta({ id: "SolanaPayTransactionRequest" }),
  codes: { account: "address_invalid" },
  errorSchema: WalletErrorSchema,
  responses: {
    200: z
      .object({
        transaction: z.string().meta({ description: "The unsigned transaction, serialized, in base64." }),
        message: z.string().meta({ description: "What the wallet shows: what is paid to whom." }),
      })
      .meta({ id: "SolanaPayTransaction" }),
  },
  errors: {
    404: NOT_FOUND,
    409: "The payment cannot be paid from a wallet now (test mode, no Solana wallet chosen, paid, expired, or its quote ended).",
    503: "This API has no Solana RPC node (SOLANA_RPC_URL).",
  },
});

export const solanaPayOperations = [getTransactionRequestOperation, postTransactionRequestOperation] as const;

/** Wallets running in a browser call from another origin (the specification asks for CORS). */
const cors: RequestHandler = (req, res, next) => {
  res.set({
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, Accept",
  });
  if (req.method === "OPTIONS") return void res.status(204).end();
  next();
};

const withMessage: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof GatewayError) || res.headersSent) return next(err);
  res
    .status(err.status)
    .set(err.headers)
    .json({ ...err.toBody(), message: err.message });
};

export function solanaPayRoutes(deps: ApiDeps): Router {
  const { sql } = deps;
  const router = Router();
  router.options("/solana-pay/tx/:id", cors);

  async function load(id: string) {
    const row = isUuid(id) ? await findPayment(sql, { id }) : undefined;
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: NOT_FOUND });
    const [merchant] = await sql<{ business_name: string | null }[]>`
      select business_name from merchants where id = ${row.merchant_id}`;
    return { row, merchantName: merchant?.business_name || "Merchant" };
  }

  mount(router, getTransactionRequestOperation, [cors], async ({ params }) => {
    const { merchantName } = await load(params.id);
    return {
      label: merchantName,
      icon: `${deps.config.PUBLIC_BASE_URL}${pageAssets("checkout").links.favicon}`,
    };
  });

  mount(router, postTransactionRequestOperation, [cors], async ({ params, body }) => {
    const payer = publicKeyOf(body.account);
    const { row, merchantName } = await load(params.id);
    const payable = payableBySolanaPay(stateOf(row), Date.now());
    if (!payable.ok) throw new GatewayError("state_conflict", { message: payable.message });
    if (!deps.solana)
      throw new GatewayError("service_unavailable", {
        message: "Paying from a Solana wallet is not available here.",
      });
    const transaction = await payerTransaction(deps.solana, deps.solanaMints, {
      payer,
      recipient: payable.address,
      coin: payable.coin,
      amount: payable.amount,
    });
    return { transaction, message: `Pay ${amountText(payable.amount, payable.coin)} to ${merchantName}` };
  });

  // Without a path: this router's own routes' errors only (routed-by-segment.ts).
  router.use(withMessage);
  return router;
}

/** The payer signs, so it must be a wallet's key: 32 bytes on the ed25519 curve. */
function publicKeyOf(account: string): PublicKey {
  let key: PublicKey | undefined;
  try {
    key = new PublicKey(account);
  } catch {
    key = undefined;
  }
  if (!key || !PublicKey.isOnCurve(key.toBytes()))
    throw new GatewayError("address_invalid", {
      param: "account",
      message: "The account is not a Solana wallet address.",
    });
  return key;
}
