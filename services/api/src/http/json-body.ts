import { GatewayError } from "@gateway/errors";
import express, { type RequestHandler } from "express";

const parseJson = express.json({ limit: "64kb", strict: true, type: () => true });

/**
 * JSON bodies only, and never more than 64 kB. A POST without a body counts as `{}` so that a
 * missing field is reported as such rather than as a parse error.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const length = Number(req.headers["content-length"] ?? 0);
  const chunked = req.headers["transfer-encoding"] !== undefined;
  if (!chunked && length === 0) {
    req.body = {};
    return next();
  }
  const type = req.headers["content-type"];
  if (type !== undefined && !/^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(type)) {
    return next(new GatewayError("unsupported_media_type"));
  }
  parseJson(req, res, (err?: unknown) => {
    if (err) return next(err);
    const problem = unsafeJson(req.body, 0);
    if (problem) return next(new GatewayError("body_invalid", { message: problem }));
    next();
  });
};

const MAX_DEPTH = 32;

/**
 * Bodies deeper than any request of ours needs, or strings holding NUL (which PostgreSQL cannot
 * store in text), are refused here rather than failing somewhere deeper as a 500.
 */
function unsafeJson(value: unknown, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return `The request body is nested deeper than ${MAX_DEPTH} levels.`;
  if (typeof value === "string")
    return value.includes("\u0000") ? "The request body contains a NUL character." : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\u0000")) return "The request body contains a NUL character.";
    const problem = unsafeJson(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
