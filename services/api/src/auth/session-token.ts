import { retryWhileUnavailable } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { RequestHandler, Response } from "express";
import { jwtVerify, SignJWT } from "jose";
import { route } from "../http/async-handler.js";
import { authenticator } from "../http/operation.js";
import type { Role } from "./permissions.js";
import { principalOf } from "./principal.js";

const ISSUER = "gateway";
const AUDIENCE = "gateway-dashboard";

/** Where a session was opened from, as GET /sessions and the audit log show it. */
export interface SessionOrigin {
  ip: string;
  userAgent: string;
}

/** The signed-in member, as every dashboard handler finds it. */
export interface SessionPrincipal {
  merchantId: string;
  userId: string;
  sessionId: string;
  email: string;
  role: Role;
  /** The team requires a second factor and this member has none yet (docs/security.md). */
  secondFactorSetupRequired: boolean;
}

/** The session rows behind the tokens (session-store.ts). */
export interface SessionStore {
  /** Opens a session for the user and answers its id. */
  open(userId: string, origin: SessionOrigin, ttlSeconds: number): Promise<string>;
  /** The live (not revoked, not expired) session of this user, with who the user is now. */
  find(sessionId: string, userId: string): Promise<SessionPrincipal | undefined>;
}

export interface SessionTokens {
  /** Opens a session for the user and signs its token. */
  issue(userId: string, origin?: SessionOrigin): Promise<string>;
  /** `Authorization: Bearer <JWT>` for the dashboard API and all /payouts calls. */
  require: RequestHandler;
}

const UNKNOWN_ORIGIN: SessionOrigin = { ip: "unknown", userAgent: "" };

/**
 * HS256 JWTs naming a user and a session row; the secret comes from JWT_SECRET and is shared by
 * every API replica. Every request reads the session row, so a revoked session, a removed member
 * or a changed role takes effect at once on every replica.
 */
export function createSessionTokens({
  secret,
  ttlSeconds,
  store,
  unavailableRetryMs = 10_000,
}: {
  secret: string;
  ttlSeconds: number;
  store: SessionStore;
  /**
   * How long the session's check is asked again while the database is unavailable (a restart),
   * as the API-key check does: the request waits the restart out instead of answering 503.
   */
  unavailableRetryMs?: number;
}): SessionTokens {
  const key = new TextEncoder().encode(secret);
  return {
    async issue(userId, origin = UNKNOWN_ORIGIN) {
      const sessionId = await store.open(userId, origin, ttlSeconds);
      return new SignJWT({ sid: sessionId })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key);
    },
    require: authenticator(
      route(async (req, res, next) => {
        const header = req.headers.authorization;
        if (!header) throw new GatewayError("token_missing");
        const match = /^Bearer\s+(\S+)$/i.exec(header);
        if (!match) throw new GatewayError("token_invalid");
        let claims: { sub?: unknown; sid?: unknown };
        try {
          ({ payload: claims } = await jwtVerify(match[1]!, key, {
            issuer: ISSUER,
            audience: AUDIENCE,
            algorithms: ["HS256"],
          }));
        } catch (cause) {
          throw new GatewayError("token_invalid", { cause });
        }
        const { sub, sid } = claims;
        if (typeof sub !== "string" || typeof sid !== "string") throw new GatewayError("token_invalid");
        // Outside the try: a database that cannot answer is waited out, then a 503, never a bad token.
        const session = await retryWhileUnavailable(() => store.find(sid, sub), unavailableRetryMs);
        if (!session) throw new GatewayError("token_invalid");
        res.locals.session = session satisfies SessionPrincipal;
        next();
      }),
    ),
  };
}

export function sessionPrincipal(res: Response): SessionPrincipal {
  return principalOf(res, "session", "session middleware");
}

/** The idempotency scope of a dashboard request: keys are the signed-in member's own. */
export function sessionIdempotencyScope(_req: unknown, res: Response): string {
  const { merchantId, userId } = sessionPrincipal(res);
  return `session:${merchantId}:${userId}`;
}
