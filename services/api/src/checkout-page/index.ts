import { parseChain, parseCoin } from "@gateway/domain";
import { findPayment, type PaymentRow } from "@gateway/payments";
import { checkoutPage, errorPage, type Language, MESSAGES, pickLanguage } from "@gateway/web-checkout";
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

  /** A page in the customer's language that says why there is no checkout here. */
  function sendError(
    res: Parameters<typeof sendPage>[0],
    status: number,
    language: Language,
    which: "linkIncomplete" | "notFound" | "unavailable",
  ) {
    const table = MESSAGES[language];
    const page = errorPage(
      { title: table[`${which}Title`], message: table[`${which}Text`] },
      assets.links,
      language,
    );
    sendPage(res, status, page);
  }

  router.get("/gateway", async (req, res) => {
    const language = pickLanguage(req.query.lang, req.headers["accept-language"]);
    res.set({ "Content-Language": language, Vary: "Accept-Language" });
    const id = req.query.payment_id;
    if (typeof id !== "string" || id === "") return sendError(res, 400, language, "linkIncomplete");
    const found = await load(id);
    if (!found) return sendError(res, 404, language, "notFound");
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
      language,
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
    // `request=1`: the Solana Pay transaction request (`solana:` and its URL, encoded) instead.
    const request = req.query.request === "1" ? view.transaction_request_url : null;
    if (req.query.request === "1" && !request)
      return void res.status(404).type("text/plain").send("No such QR code.");
    const content = request ? `solana:${encodeURIComponent(request)}` : (view.payment_uri ?? view.address);
    const svg = await QRCode.toString(content, {
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
    sendError(res, 503, pickLanguage(req.query.lang, req.headers["accept-language"]), "unavailable");
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
