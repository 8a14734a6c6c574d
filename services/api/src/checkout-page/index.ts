import { checkoutPage, errorPage, type Language, MESSAGES, pickLanguage } from "@gateway/web-checkout";
import type { AssetLinks } from "@gateway/web-kit";
import { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import type { ApiDeps } from "../deps.js";
import { assetRoutes, pageAssets } from "../front-end/assets.js";
import { sendPage } from "../front-end/page-response.js";
import { checkoutView, walletLinks } from "../routes/checkout/checkout-view.js";
import { loadPagePayment } from "./page-payment.js";
import { walletQr } from "./wallet-qr.js";

/**
 * The hosted checkout page: `GET /gateway?payment_id=…`, its assets and its QR codes. Page loads
 * are not rate limited (docs/dashboard.md, "Rate limits"); the JSON the page polls is, like every
 * API call.
 */
export function checkoutPageRoutes(deps: ApiDeps): Router {
  const router = Router();
  const assets = pageAssets("checkout");
  router.get("/gateway", checkoutPageHandler(deps, assets.links));
  router.use(assetRoutes(assets));
  router.get("/gateway/qr", walletQr(deps));
  // A page request that fails gets a page, not the API's JSON error.
  const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent || req.path !== "/gateway") return next(err);
    deps.log.error({ err, path: req.path }, "checkout page failed");
    const language = pickLanguage(req.query.lang, req.headers["accept-language"]);
    sendError(res, 503, assets.links, language, "unavailable");
  };
  router.use(pageErrors);
  return router;
}

function checkoutPageHandler(deps: ApiDeps, links: AssetLinks): RequestHandler {
  return async (req, res) => {
    const language = pickLanguage(req.query.lang, req.headers["accept-language"]);
    res.set({ "Content-Language": language, Vary: "Accept-Language" });
    const id = req.query.payment_id;
    if (typeof id !== "string" || id === "") return sendError(res, 400, links, language, "linkIncomplete");
    const found = await loadPagePayment(deps.sql, id);
    if (!found) return sendError(res, 404, links, language, "notFound");
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
      links,
      language,
    );
    sendPage(res, 200, html);
  };
}

/** A page in the customer's language that says why there is no checkout here. */
function sendError(
  res: Parameters<typeof sendPage>[0],
  status: number,
  links: AssetLinks,
  language: Language,
  which: "linkIncomplete" | "notFound" | "unavailable",
) {
  const table = MESSAGES[language];
  const page = errorPage({ title: table[`${which}Title`], message: table[`${which}Text`] }, links, language);
  sendPage(res, status, page);
}
