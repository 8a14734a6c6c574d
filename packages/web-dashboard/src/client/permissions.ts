// What the signed-in member's role may do, as GET /auth/me lists it (from the server's one
// permission table): pages draw only the controls it allows. The server checks every call anyway.
import type { Merchant } from "./types.js";

let allowed = new Set<string>();

export function setMember(me: Merchant | null): void {
  allowed = new Set(me?.permissions ?? []);
}

/** `can("POST /payouts")`: the route's method and OpenAPI path, as the permission table names it. */
export function can(route: string): boolean {
  return allowed.has(route);
}
