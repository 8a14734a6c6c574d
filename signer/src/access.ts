// Who may call what: the one table an auditor reads to know what a stolen client certificate
// is worth. A role is named by the caller's certificate (see identity.ts); anything not
// listed here is refused. Adding an RPC or an intent kind is adding a row.
import type { SignRequest } from "@gateway/signer-proto";

/** The roles a client certificate can name. The watchers do not call the signer today. */
export const ROLES = ["api", "settlement"] as const;
export type Role = (typeof ROLES)[number];

/** RPC name (as in the .proto) → the roles that may call it. */
export const RPC_ROLES = {
  // The API hands out deposit addresses; settlement learns them from the payment it settles.
  DeriveDepositAddress: ["api"],
  DeriveDepositAddresses: ["api"],
  GetServiceAddresses: ["api", "settlement"],
  // Only settlement moves funds; the API's part in a payout is its approval, not a signature request.
  Sign: ["settlement"],
  SignBatch: ["settlement"],
  // Both keep the highest head they saw, to catch a log cut back on the signer's host.
  GetAuditHead: ["api", "settlement"],
  // The API asks for allow-list changes after the merchant's e-mailed code, and shows the list;
  // settlement pays out only to what is on it and cannot change it.
  RequestPayoutDestination: ["api"],
  CancelPayoutDestination: ["api"],
  ListPayoutDestinations: ["api"],
} as const satisfies Record<string, readonly Role[]>;
export type RpcName = keyof typeof RPC_ROLES;

export type IntentKindName = NonNullable<NonNullable<SignRequest["intent"]>["kind"]["case"]>;

/** Intent kind → the roles that may ask for it (on top of being allowed Sign/SignBatch). */
export const INTENT_KIND_ROLES = {
  sweep: ["settlement"],
  refund: ["settlement"],
  payout: ["settlement"],
  // Settlement keeps the gas wallet's pool of durable nonces for refunds and payouts.
  nonceAccount: ["settlement"],
} as const satisfies Record<IntentKindName, readonly Role[]>;

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Unknown RPC names are refused: a new RPC without a row is closed, not open. */
export function mayCall(role: Role, rpc: string): boolean {
  const roles: readonly Role[] | undefined = (RPC_ROLES as Record<string, readonly Role[]>)[rpc];
  return roles?.includes(role) ?? false;
}

/** A request without a kind is the core's to refuse (INVALID_INTENT), not an access question. */
export function mayRequest(role: Role, kind: IntentKindName | undefined): boolean {
  if (kind === undefined) return true;
  const roles: readonly Role[] | undefined = (INTENT_KIND_ROLES as Record<string, readonly Role[]>)[kind];
  return roles?.includes(role) ?? false;
}
