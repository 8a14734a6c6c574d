// The e-mailed second factor of a payout: an e-mailed code (email_codes, one live row per
// merchant and purpose, HMAC only) whose value is an RFC 4226 HOTP value from otplib over a fresh
// random secret that is thrown away once the code is mailed.
import { randomBytes } from "node:crypto";
import type { Sql, TransactionSql } from "@gateway/db";
import type { Chain, Mode } from "@gateway/domain";
import { generateSync } from "otplib";
import { CODE_MAX_ATTEMPTS, createEmailCodes } from "../auth/email-codes.js";

/** 6 digits, valid 10 minutes, 5 wrong tries void the code, one live code per merchant (docs/payouts.md, "Codes"). */
export const PAYOUT_CODE_MAX_ATTEMPTS = CODE_MAX_ATTEMPTS;
const PURPOSE = "payout";

/** What a code authorises: payouts of one mode, on one chain, to one address. */
export interface PayoutCodeBinding {
  mode: Mode;
  chain: Chain;
  destination: string;
}

const bindingText = (b: PayoutCodeBinding) => `${b.mode}:${b.chain}:${b.destination}`;

export interface PayoutCodes {
  /** A fresh code for this binding; it replaces the merchant's live payout code, whatever it was for. */
  issue(merchantId: string, binding: PayoutCodeBinding): Promise<{ code: string; expiresAt: Date }>;
  /**
   * Spends the code if it matches and was issued for this binding, running `onValid` in the same
   * transaction (the code is spent only if that commits). Otherwise counts a wrong try (the fifth
   * deletes the code) and throws 400 `code_invalid` with param `otp`.
   */
  consume<T>(
    merchantId: string,
    binding: PayoutCodeBinding,
    code: unknown,
    onValid: (tx: TransactionSql) => Promise<T>,
  ): Promise<T>;
}

const hotpCode = () =>
  generateSync({ strategy: "hotp", secret: new Uint8Array(randomBytes(20)), counter: 0, digits: 6 });

export function createPayoutCodes({ sql, secret }: { sql: Sql; secret: string }): PayoutCodes {
  const codes = createEmailCodes({ sql, secret, keyLabel: "gateway payout codes v1", newCode: hotpCode });
  return {
    issue: (merchantId, binding) =>
      codes.issue({ merchantId, purpose: PURPOSE, boundTo: bindingText(binding) }),
    consume: (merchantId, binding, code, onValid) =>
      codes.consume({
        merchantId,
        purpose: PURPOSE,
        boundTo: bindingText(binding),
        code,
        param: "otp",
        onValid,
      }),
  };
}
