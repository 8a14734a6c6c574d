// Who may call what: one table for the dashboard's roles, one for API keys' scopes. Every mounted
// operation is checked against them (http/operation.ts); permissions.test.ts calls every route with
// every role and every scope, so a route added without its row fails there (and is refused to
// everyone meanwhile). To add a route: add one row, `"<METHOD> <OpenAPI path>": <rule>`.
import { GatewayError } from "@gateway/errors";
import type { RequestHandler, Response } from "express";

export const ROLES = ["owner", "admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = [
  "payments:read",
  "payments:write",
  "payment_links:write",
  "subscriptions:read",
  "subscriptions:write",
  "webhooks:read",
  "webhooks:write",
  "events:read",
  "exports:read",
] as const;
export type Scope = (typeof SCOPES)[number];

const EVERYONE: readonly Role[] = ROLES;
/** Managing the team and the money: owners and admins. */
const MANAGERS: readonly Role[] = ["owner", "admin"];
/** Keys, webhooks, payments: everyone who builds, not viewers. */
const BUILDERS: readonly Role[] = ["owner", "admin", "developer"];
/** Reading money and the team: developers are kept out of payouts and the team (docs/security.md). */
const MONEY_READERS: readonly Role[] = ["owner", "admin", "viewer"];

/** Dashboard routes (session token) → the roles allowed to call them. */
export const ROLE_RULES: Readonly<Record<string, readonly Role[]>> = {
  // The signed-in person's own account: every role.
  "GET /auth/me": EVERYONE,
  "POST /auth/password": EVERYONE,
  "POST /auth/2fa/setup": EVERYONE,
  "POST /auth/2fa/enable": EVERYONE,
  "POST /auth/2fa/disable": EVERYONE,
  "POST /auth/passkeys/register/options": EVERYONE,
  "POST /auth/passkeys/register": EVERYONE,
  "GET /auth/passkeys": EVERYONE,
  "DELETE /auth/passkeys/{id}": EVERYONE,
  "GET /sessions": EVERYONE,
  "DELETE /sessions/{id}": EVERYONE,
  // Team and audit.
  "GET /team": MONEY_READERS,
  "POST /team/invitations": MANAGERS,
  "PUT /team/members/{id}": MANAGERS,
  "DELETE /team/members/{id}": MANAGERS,
  "PUT /team/settings": ["owner"],
  "GET /audit-log": MANAGERS,
  // API keys, webhooks and payments.
  "POST /api-keys": BUILDERS,
  "GET /api-keys": EVERYONE,
  "POST /api-keys/{id}/deactivate": BUILDERS,
  "POST /api-keys/{id}/activate": BUILDERS,
  "GET /dashboard/api/payments": EVERYONE,
  "GET /dashboard/api/payments/{id}": EVERYONE,
  "GET /dashboard/api/webhooks": EVERYONE,
  "POST /dashboard/api/webhooks": BUILDERS,
  "DELETE /dashboard/api/webhooks/{id}": BUILDERS,
  "GET /dashboard/api/webhooks/{id}/deliveries": EVERYONE,
  "POST /dashboard/api/webhooks/{id}/redeliver": BUILDERS,
  "GET /dashboard/api/webhook-deliveries": EVERYONE,
  "GET /dashboard/api/payment-links": EVERYONE,
  // Developer tools: the home page, search, a payment's transactions, test webhooks, exports.
  "GET /dashboard/api/overview": EVERYONE,
  "GET /dashboard/api/search": EVERYONE,
  "GET /dashboard/api/payments/{id}/transactions": EVERYONE,
  "POST /dashboard/api/webhooks/{id}/test": BUILDERS,
  "GET /exports/payments.csv": EVERYONE,
  "GET /exports/ledger.csv": MONEY_READERS,
  "GET /exports/payouts.csv": MONEY_READERS,
  "POST /dashboard/api/payment-links": BUILDERS,
  "POST /dashboard/api/payment-links/{id}/deactivate": BUILDERS,
  // Payouts and payout wallets.
  "GET /payout-wallets": MONEY_READERS,
  "POST /payout-wallets/{chain}/request-code": MANAGERS,
  "PUT /payout-wallets/{chain}": MANAGERS,
  "GET /payout-destinations": MONEY_READERS,
  "DELETE /payout-destinations/{chain}/{address}": MANAGERS,
  "GET /payouts/context": MONEY_READERS,
  "GET /payouts": MONEY_READERS,
  "GET /payouts/{id}": MONEY_READERS,
  "GET /payouts/schedule": MONEY_READERS,
  "PUT /payouts/schedule": MANAGERS,
  "POST /payouts/request-otp": MANAGERS,
  "POST /payouts": MANAGERS,
};

/**
 * What a member whose team requires two-factor login, and who has no second factor yet, may
 * call: enough to see who they are, set a factor up, and manage their sessions.
 */
export const BEFORE_SECOND_FACTOR: ReadonlySet<string> = new Set([
  "GET /auth/me",
  "POST /auth/2fa/setup",
  "POST /auth/2fa/enable",
  "POST /auth/passkeys/register/options",
  "POST /auth/passkeys/register",
  "GET /auth/passkeys",
  "GET /sessions",
  "DELETE /sessions/{id}",
]);

/** Merchant API routes (x-api-key) → the scope a restricted key needs for them. */
export const SCOPE_RULES: Readonly<Record<string, Scope>> = {
  "POST /payments": "payments:write",
  "GET /payments": "payments:read",
  "GET /payments/{id}": "payments:read",
  "POST /webhooks": "webhooks:write",
  "GET /webhooks": "webhooks:read",
  "DELETE /webhooks/{id}": "webhooks:write",
  "GET /webhooks/{id}/deliveries": "webhooks:read",
  "POST /webhooks/{id}/redeliver": "webhooks:write",
  "POST /payment-links": "payment_links:write",
  "POST /payment-links/{id}/deactivate": "payment_links:write",
  // Links are where payments come from: a key that reads payments may read them.
  "GET /payment-links": "payments:read",
  "GET /events": "events:read",
  "GET /events/{id}": "events:read",
  "POST /webhooks/{id}/test": "webhooks:write",
  "GET /exports/payments.csv": "exports:read",
  "GET /exports/ledger.csv": "exports:read",
  "GET /exports/payouts.csv": "exports:read",
};

export function routeKey(spec: { method: string; path: string }): string {
  return `${spec.method.toUpperCase()} ${spec.path}`;
}

/** The role routes a role may call: what the dashboard page shows or hides follows it. */
export function routesAllowedTo(role: Role): string[] {
  return Object.entries(ROLE_RULES)
    .filter(([, roles]) => roles.includes(role))
    .map(([key]) => key);
}

interface SessionSlot {
  role: Role;
  secondFactorSetupRequired: boolean;
}
interface ApiKeySlot {
  /** Null: every scope (a keypair made without scopes, or before scopes existed). */
  scopes: readonly string[] | null;
}

/** Checks the signed-in member's role against ROLE_RULES; an unlisted route is refused to all. */
export function requireRole(key: string): RequestHandler {
  const roles = ROLE_RULES[key];
  return (_req, res, next) => {
    const session = slot<SessionSlot>(res, "session");
    if (!roles?.includes(session.role)) return next(new GatewayError("permission_denied"));
    if (session.secondFactorSetupRequired && !BEFORE_SECOND_FACTOR.has(key))
      return next(new GatewayError("two_factor_setup_required"));
    next();
  };
}

/** Checks the API key's scopes against SCOPE_RULES; an unlisted route is refused to every key. */
export function requireScope(key: string): RequestHandler {
  const scope = SCOPE_RULES[key];
  return (_req, res, next) => {
    const { scopes } = slot<ApiKeySlot>(res, "apiKey");
    if (!scope || (scopes !== null && !scopes.includes(scope)))
      return next(new GatewayError("permission_denied"));
    next();
  };
}

function slot<T>(res: Response, name: "session" | "apiKey"): T {
  const value = res.locals[name] as T | undefined;
  if (!value) throw new Error(`authentication must run before the ${name} permission check`);
  return value;
}
