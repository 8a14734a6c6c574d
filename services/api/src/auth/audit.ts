// The audit log (migration 1700): who did what to the account's security, and from where.
// Entries are only ever inserted; a trigger refuses to change or delete one.
import { newId, type Sql, type TransactionSql } from "@gateway/db";
import type { Request, Response } from "express";
import { createClientIp } from "../http/client-ip.js";
import type { ApiKeyPrincipal } from "./require-api-key.js";
import type { SessionPrincipal } from "./session-token.js";

/** Every action the log records: a closed list, so the docs and the page can name each. */
export const AUDIT_ACTIONS = [
  "login.succeeded",
  "login.failed",
  "password.changed",
  "session.revoked",
  "totp.enabled",
  "totp.disabled",
  "recovery_code.used",
  "passkey.added",
  "passkey.removed",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "team.settings_changed",
  "api_key.created",
  "api_key.deactivated",
  "api_key.activated",
  "webhook.created",
  "webhook.deleted",
  "payout_wallet.changed",
  "payout.requested",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  merchantId: string;
  /** A user id (`usr_…`) or a keypair id (`key_…`); null when nobody is signed in. */
  actorId: string | null;
  /** What the log shows: the member's e-mail, or the keypair's id. */
  actor: string;
  action: AuditAction;
  details?: Record<string, unknown>;
}

export interface RequestOrigin {
  ip: string;
  userAgent: string;
}

export type Audit = (db: Sql | TransactionSql, entry: AuditEntry, req: Request) => Promise<void>;

/** Records entries with the request's client address (behind the trusted proxies) and user agent. */
export function createAudit(trustedProxies: string[]): {
  record: Audit;
  origin: (req: Request) => RequestOrigin;
} {
  const clientIp = createClientIp(trustedProxies);
  const origin = (req: Request): RequestOrigin => ({
    ip: clientIp(req),
    userAgent: (req.headers["user-agent"] ?? "").slice(0, 500),
  });
  return {
    origin,
    async record(db, { merchantId, actorId, actor, action, details = {} }, req) {
      const { ip, userAgent } = origin(req);
      await db`
        insert into audit_log (id, merchant_id, actor_id, actor, action, ip, user_agent, details)
        values (${newId("aud")}, ${merchantId}, ${actorId}, ${actor}, ${action}, ${ip}, ${userAgent},
                ${db.json(details as never)})`;
    },
  };
}

/** The entry's actor fields for a signed-in member. */
export function memberActor(session: SessionPrincipal): Pick<AuditEntry, "merchantId" | "actorId" | "actor"> {
  return { merchantId: session.merchantId, actorId: session.userId, actor: session.email };
}

/** The entry's actor fields for a merchant API key. */
export function keyActor(key: ApiKeyPrincipal): Pick<AuditEntry, "merchantId" | "actorId" | "actor"> {
  return { merchantId: key.merchantId, actorId: key.keypairId, actor: `API key ${key.keypairId}` };
}

/** Whoever the guards found: a session or an API key. */
export function callerActor(res: Response): Pick<AuditEntry, "merchantId" | "actorId" | "actor"> {
  const session = res.locals.session as SessionPrincipal | undefined;
  if (session) return memberActor(session);
  const key = res.locals.apiKey as ApiKeyPrincipal | undefined;
  if (key) return keyActor(key);
  throw new Error("an audited action needs an authenticated caller");
}
