import { isDatabaseUnavailable } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Logger } from "@gateway/logging";
import type { ErrorRequestHandler, RequestHandler } from "express";

/**
 * The one place errors become HTTP responses. GatewayErrors map through the closed code table;
 * body-parser failures are the client's fault; anything else is our bug: logged, and answered
 * with a generic 500 that reveals nothing.
 */
export function errorMiddleware(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toGatewayError(err);
    // A price outage is the feeds', documented and expected: a warning, not a bug report.
    if (error.code === "price_unavailable") log.warn({ method: req.method, path: req.path }, "no live price");
    else if (error.status >= 500) log.error({ err, method: req.method, path: req.path }, "request failed");
    if (res.headersSent) return;
    res.status(error.status).set(error.headers).json(error.toBody());
  };
}

function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number };
  // Errors raised by express.json / raw-body carry a `type`.
  switch (e?.type) {
    case "entity.parse.failed":
      return new GatewayError("body_invalid");
    case "entity.too.large":
      return new GatewayError("payload_too_large");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new GatewayError("unsupported_media_type");
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new GatewayError("body_invalid");
  }
  const status = e?.status ?? e?.statusCode;
  if (status === 400) return new GatewayError("body_invalid", { cause: err });
  if (status === 413) return new GatewayError("payload_too_large", { cause: err });
  if (status === 415) return new GatewayError("unsupported_media_type", { cause: err });
  if (isDatabaseUnavailable(err)) return new GatewayError("service_unavailable", { cause: err });
  return new GatewayError("internal_error", { cause: err });
}

export const notFound: RequestHandler = (_req, _res, next) => next(new GatewayError("route_not_found"));
