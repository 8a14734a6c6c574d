// Opening a payment link (`GET /pay/<id>`): a fresh payment and a 303 to its checkout, or a page
// that says in words why not. Its QR code (`GET /pay/<id>/qr`) is what the dashboard shows.
import { GatewayError } from "@gateway/errors";
import { openPaymentLink } from "@gateway/payment-links";
import { toPaymentResource } from "@gateway/payments";
import { errorPage } from "@gateway/web-checkout";
import { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import QRCode from "qrcode";
import type { ApiDeps } from "../../deps.js";
import { pageAssets } from "../../front-end/assets.js";
import { SVG_CSP, sendPage } from "../../front-end/page-response.js";
import { createClientIp } from "../../http/client-ip.js";
import { rateLimitByIp } from "../../http/rate-limit.js";
import { DEFAULT_EXPIRES_IN_SECONDS, newPaymentState } from "../payments/create-payment.js";
import { paymentLinkUrl } from "./link-resource.js";

const ID = /^plink_[A-Za-z0-9_-]{1,60}$/;

/** A page that says in words why the link did not open. */
function sendLinkPage(res: Parameters<typeof sendPage>[0], status: number, title: string, message: string) {
  sendPage(res, status, errorPage({ title, message }, pageAssets("checkout").links));
}

export function paymentLinkPageRoutes(deps: ApiDeps): Router {
  const { config } = deps;
  const router = Router();
  // Each opening writes a payment, so openings count against the API's per-IP limit.
  const limit = rateLimitByIp(
    deps.limiter,
    config.RATE_LIMIT_PER_MINUTE,
    createClientIp(config.TRUSTED_PROXIES),
  );
  router.get("/pay/:id", limit, openLink(deps));
  router.get("/pay/:id/qr", linkQr(deps));
  router.use(linkPageErrors(deps));
  return router;
}

function openLink(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id);
    const opened = ID.test(id)
      ? await openPaymentLink(deps.sql, id, (effect, link) => ({
          state: newPaymentState(deps.prices, {
            id: effect.paymentId,
            mode: link.mode,
            currency: effect.currency,
            amount: effect.amount,
            expiresInSeconds: DEFAULT_EXPIRES_IN_SECONDS,
          }),
          merchantId: link.merchantId,
          description: effect.description,
          redirectUrl: effect.redirectUrl,
        }))
      : ({ outcome: "missing" } as const);
    switch (opened.outcome) {
      case "opened":
        return res.redirect(303, toPaymentResource(opened.payment, deps.config.PUBLIC_BASE_URL).checkout_url);
      case "inactive":
        return sendLinkPage(
          res,
          410,
          "This link is no longer active",
          "The shop has turned this payment link off, so nothing can be paid through it. If you still want to buy, ask the shop for a new link.",
        );
      case "missing":
        return sendLinkPage(
          res,
          404,
          "Payment link not found",
          "We could not find this payment link. Check that it is complete, or ask the shop for a new one.",
        );
    }
  };
}

function linkQr(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id);
    const [found] = ID.test(id) ? await deps.sql`select 1 from payment_links where id = ${id}` : [];
    if (!found) return void res.status(404).type("text/plain").send("No such QR code.");
    const svg = await QRCode.toString(paymentLinkUrl(deps.config.PUBLIC_BASE_URL, id), {
      type: "svg",
      errorCorrectionLevel: "M",
      margin: 2,
    });
    res.set({ "Content-Type": "image/svg+xml; charset=utf-8", "Content-Security-Policy": SVG_CSP });
    res.send(svg);
  };
}

/** A link that cannot open gets a page, not the API's JSON error. */
function linkPageErrors(deps: ApiDeps): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent || !req.path.startsWith("/pay/")) return next(err);
    if (err instanceof GatewayError && err.code === "rate_limited") {
      res.set(err.headers);
      return sendLinkPage(res, 429, "Too many attempts", "Please wait a minute and open the link again.");
    }
    if (!(err instanceof GatewayError) || err.status >= 500)
      deps.log.error({ err, path: req.path }, "payment link failed");
    sendLinkPage(
      res,
      503,
      "This link cannot take a payment right now",
      "The payment could not be prepared just now. Please try again in a moment.",
    );
  };
}
