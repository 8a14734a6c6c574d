import type { PaymentRow } from "@gateway/payments";
import type { Request, Response } from "express";
import type { PaymentChange, PaymentWatch } from "./payment-watch.js";

/** The statuses after which the checkout page stops following a payment. */
const FINAL = new Set(["completed", "refunded", "expired", "failed"]);
/** A comment line now and then keeps proxies and load balancers from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** A stream ends after this long; the browser opens a new one (EventSource reconnects). */
const MAX_STREAM_MS = 10 * 60_000;

/**
 * `GET /payments/checkout/:id/events`: a Server-Sent Events stream of change notices for one
 * payment, `{version, status}` and never the view itself. The page reads the view again when told
 * something changed: one request for the whole visit instead of a poll every two seconds, which
 * matters when many customers share an IP address and so its rate limit. The first notice is the
 * current version; the stream ends once the payment is final.
 */
export function streamPaymentChanges(
  req: Request,
  res: Response,
  row: PaymentRow,
  watch: PaymentWatch,
): void {
  res.status(200).set({
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    // nginx would otherwise buffer the stream.
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  const notify = (change: PaymentChange) =>
    res.write(`id: ${change.version}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`);
  res.write("retry: 3000\n\n");
  notify({ version: row.version, status: row.status });
  if (FINAL.has(row.status)) {
    res.end();
    return;
  }

  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    unfollow();
    res.end();
  };
  const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), HEARTBEAT_MS);
  const lifetime = setTimeout(end, MAX_STREAM_MS);
  const unfollow = watch.follow(
    row.id,
    row.version,
    (change) => {
      notify(change);
      if (FINAL.has(change.status)) end();
    },
    end,
  );
  req.socket.setTimeout(0);
  res.on("close", end);
}
