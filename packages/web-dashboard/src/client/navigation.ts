// Routing is by URL hash (#/payments, #/keys, ...): main.ts draws the page on every hashchange.
import type { Mode } from "@gateway/contracts";

/** Goes to `hash`; going to the page already shown draws it again. */
export function go(hash: string): void {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = hash;
}

/** The query of the current hash: `#/payments?mode=live` → mode=live. */
export function hashQuery(): URLSearchParams {
  return new URLSearchParams(location.hash.split("?")[1] ?? "");
}

/** `test` unless the hash asks for `live`: pages start on test mode. */
export function modeFromHash(): Mode {
  return hashQuery().get("mode") === "live" ? "live" : "test";
}
