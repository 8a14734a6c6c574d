// A decision not to sign. The code set is closed (RefusalCode in the proto) so callers
// and the audit log can tell the classes apart; the reason is for humans.
import { RefusalCode } from "@gateway/signer-proto";

export class Refusal extends Error {
  override readonly name = "Refusal";
  constructor(
    readonly code: RefusalCode,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(reason, options);
  }
}

export function refuse(code: RefusalCode, reason: string): never {
  throw new Refusal(code, reason);
}

/** An intent that is incomplete or malformed, whatever its transaction. */
export const invalid: (reason: string) => never = (reason) => refuse(RefusalCode.INVALID_INTENT, reason);

/** The proto enum name without its prefix, e.g. "WRONG_AMOUNT", for logs and audit lines. */
export function refusalCodeName(code: RefusalCode): string {
  return RefusalCode[code] ?? String(code);
}

export { RefusalCode };
