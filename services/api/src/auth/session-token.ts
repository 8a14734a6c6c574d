import { retryWhileUnavailable } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { RequestHandler, Response } from "express";
import { jwtVerify, SignJWT } from "jose";
import { route } from "../http/async-handler.js";
import { principalOf } from "./principal.js";

const ISSUER = "gateway";
const AUDIENCE = "gateway-dashboard";

export interface SessionTokens {
  issue(merchantId: string): Promise<string>;
  /** `Authorization: Bearer <JWT>` for the dashboard API and all /payouts calls. */
  require: RequestHandler;
}

export interface SessionPrincipal {
  merchantId: string;
}

/** Short-lived HS256 JWTs; the secret comes from JWT_SECRET and is shared by every API replica. */
export function createSessionTokens({
  secret,
  ttlSeconds,
  merchantExists,
  unavailableRetryMs = 10_000,
}: {
  secret: string;
  ttlSeconds: number;
  /** A merchant that no longer exists is refused like a bad token (its token may still be valid). */
  merchantExists?: (merchantId: string) => Promise<boolean>;
  /**
   * How long the merchant's check is asked again while the database is unavailable (a restart),
   * as the API-key check does: the request waits the restart out instead of answering 503.
   */
  unavailableRetryMs?: number;
}): SessionTokens {
  const key = new TextEncoder().encode(secret);
  return {
    issue: (merchantId) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(merchantId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key),
    require: route(async (req, res, next) => {
      const header = req.headers.authorization;
      if (!header) throw new GatewayError("token_missing");
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw new GatewayError("token_invalid");
      let subject: unknown;
      try {
        const { payload } = await jwtVerify(match[1]!, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ["HS256"],
        });
        subject = payload.sub;
      } catch (cause) {
        throw new GatewayError("token_invalid", { cause });
      }
      if (typeof subject !== "string") throw new GatewayError("token_invalid");
      // Outside the try: a database that cannot answer is waited out, then a 503, never a bad token.
      if (merchantExists && !(await retryWhileUnavailable(() => merchantExists(subject), unavailableRetryMs)))
        throw new GatewayError("token_invalid");
      res.locals.session = { merchantId: subject } satisfies SessionPrincipal;
      next();
    }),
  };
}

export function sessionPrincipal(res: Response): SessionPrincipal {
  return principalOf(res, "session", "session middleware");
}

/** The idempotency scope of a dashboard request: keys are the signed-in merchant's own. */
export function sessionIdempotencyScope(_req: unknown, res: Response): string {
  return `session:${sessionPrincipal(res).merchantId}`;
}
