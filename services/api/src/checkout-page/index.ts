import { parseChain, parseCoin } from "@gateway/domain";
import { findPayment, type PaymentRow } from "@gateway/payments";
import { type ErrorRequestHandler, Router } from "express";
import QRCode from "qrcode";
import type { ApiDeps } from "../deps.js";
import { assetRoutes, pageAssets } from "../front-end/assets.js";
import { SVG_CSP, sendPage } from "../front-end/page-response.js";
import {
  checkoutView,
  type DepositWalletRow,
  walletLinks,
  walletView,
} from "../routes/checkout/checkout-view.js";
import { checkoutPage, errorPage } from "./page-html.js";

/**
 * The hosted checkout page: `GET /gateway?payment_id=…`, its assets and its QR codes. Page loads
 * are not rate limited (docs/dashboard.md, "Rate limits"); the JSON the page polls is, like every
 * API call.
 */
export function checkoutPageRoutes(deps: ApiDeps): Router {
  const { sql, log } = deps;
  const router = Router();
  const assets = pageAssets("checkout");

  async function load(id: string): Promise<{ row: PaymentRow; merchantName: string } | undefined> {
    const row = await findPayment(sql, { id });
    if (!row) return undefined;
    const [merchant] = await sql<{ business_name: string }[]>`
      select business_name from merchants where id = ${row.merchant_id}`;
    return { row, merchantName: merchant?.business_name ?? "" };
  }

  router.get("/gateway", async (req, res) => {
    const id = req.query.payment_id;
    if (typeof id !== "string" || id === "") {
      const message =
        "This payment link is incomplete: it does not name a payment. Use the link the shop gave you.";
      return sendPage(res, 400, errorPage({ title: "Payment link incomplete", message }, assets.links));
    }
    const found = await load(id);
    if (!found) {
      const message =
        "We could not find this payment. Check that the link is complete, or ask the shop for a new payment link.";
      return sendPage(res, 404, errorPage({ title: "Payment not found", message }, assets.links));
    }
    const view = checkoutView(found.row, found.merchantName, undefined, walletLinks(deps), undefined);
    const html = checkoutPage(
      {
        paymentId: view.id,
        merchantName: view.merchant_name,
        description: view.description,
        amount: view.amount,
        currency: view.currency,
        isTest: view.is_test,
        expiresAt: view.expires_at,
      },
      assets.links,
    );
    sendPage(res, 200, html);
  });

  router.use(assetRoutes(assets));

  /**
   * The QR code of one deposit wallet: its payment URI (Solana Pay) where the chain has one, else
   * the bare address. Addressed by choice rather than "current wallet", so the image for a choice
   * never changes and a customer switching coins can never see a stale code.
   */
  router.get("/gateway/qr", async (req, res) => {
    const { payment_id: id, chain, coin } = req.query;
    const found = typeof id === "string" ? await load(id) : undefined;
    const parsedChain = typeof chain === "string" ? safely(() => parseChain(chain)) : undefined;
    const parsedCoin = typeof coin === "string" ? safely(() => parseCoin(coin)) : undefined;
    if (!found || !parsedChain || !parsedCoin)
      return void res.status(404).type("text/plain").send("No such QR code.");
    const [wallet] = await sql<DepositWalletRow[]>`
      select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets
      where payment_id = ${found.row.id} and chain = ${parsedChain} and coin = ${parsedCoin}`;
    if (!wallet) return void res.status(404).type("text/plain").send("No such QR code.");
    const view = walletView(wallet, found.row, found.merchantName, walletLinks(deps));
    const svg = await QRCode.toString(view.payment_uri ?? view.address, {
      type: "svg",
      errorCorrectionLevel: "M",
      margin: 2,
      color: { dark: "#000000", light: "#ffffff" },
    });
    res.set({
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Content-Security-Policy": SVG_CSP,
      "Cache-Control": "private, max-age=3600",
    });
    res.send(svg);
  });

  // A page request that fails gets a page, not the API's JSON error.
  const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent || req.path !== "/gateway") return next(err);
    log.error({ err, path: req.path }, "checkout page failed");
    const message = "The payment page could not be loaded just now. Please try again in a moment.";
    sendPage(res, 503, errorPage({ title: "Temporarily unavailable", message }, assets.links));
  };
  router.use(pageErrors);

  return router;
}

function safely<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}
