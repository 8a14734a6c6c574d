import { parseChain, parseCoin } from "@gateway/domain";
import type { RequestHandler } from "express";
import QRCode from "qrcode";
import type { ApiDeps } from "../deps.js";
import { SVG_CSP } from "../front-end/page-response.js";
import { walletLinks, walletView } from "../routes/checkout/checkout-view.js";
import { walletOfChoice } from "../routes/checkout/wallet-statements.js";
import { loadPagePayment } from "./page-payment.js";

/**
 * The QR code of one deposit wallet: its payment URI (Solana Pay) where the chain has one, else
 * the bare address. Addressed by choice rather than "current wallet", so the image for a choice
 * never changes and a customer switching coins can never see a stale code.
 */
export function walletQr(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    const { payment_id: id, chain, coin } = req.query;
    const found = typeof id === "string" ? await loadPagePayment(deps.sql, id) : undefined;
    const parsedChain = typeof chain === "string" ? safely(() => parseChain(chain)) : undefined;
    const parsedCoin = typeof coin === "string" ? safely(() => parseCoin(coin)) : undefined;
    if (!found || !parsedChain || !parsedCoin)
      return void res.status(404).type("text/plain").send("No such QR code.");
    const wallet = await walletOfChoice(deps.sql, found.row.id, parsedChain, parsedCoin);
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
  };
}

function safely<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}
