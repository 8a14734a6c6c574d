import type { Response } from "express";

/**
 * Who a guard found the caller to be, as it left it for the handlers after it; a handler mounted
 * without its guard is a bug, not a client error.
 */
export function principalOf<T>(res: Response, slot: "session" | "apiKey", guard: string): T {
  const principal = res.locals[slot] as T | undefined;
  if (!principal) throw new Error(`${guard} must run before this handler`);
  return principal;
}
