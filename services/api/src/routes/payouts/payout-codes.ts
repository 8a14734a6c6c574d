// The e-mailed second factor of a payout. Same storage as the other e-mailed codes
// (email_codes, one live row per merchant and purpose, HMAC only), but each code is an RFC 4226
// HOTP value from otplib over a fresh random secret that is thrown away once the code is mailed.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Sql, TransactionSql } from "@gateway/db";
import type { Chain, Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { generateSync } from "otplib";

/** 6 digits, valid 10 minutes, 5 wrong tries void the code, one live code per merchant (docs/payouts.md, "Codes"). */
export const PAYOUT_CODE_TTL_SECONDS = 600;
export const PAYOUT_CODE_MAX_ATTEMPTS = 5;
const PURPOSE = "payout";
const CODE_PATTERN = /^\d{6}$/;

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

export function createPayoutCodes({ sql, secret }: { sql: Sql; secret: string }): PayoutCodes {
  const key = createHmac("sha256", secret).update("gateway payout codes v1").digest();
  const hashOf = (merchantId: string, code: string) =>
    createHmac("sha256", key).update(`${merchantId}\n${PURPOSE}\n${code}`).digest();
  const remove = (tx: TransactionSql, merchantId: string) =>
    tx`delete from email_codes where merchant_id = ${merchantId} and purpose = ${PURPOSE}`;

  return {
    async issue(merchantId, binding) {
      const code = generateSync({
        strategy: "hotp",
        secret: new Uint8Array(randomBytes(20)),
        counter: 0,
        digits: 6,
      });
      const [row] = await sql<{ expires_at: Date }[]>`
        insert into email_codes (merchant_id, purpose, code_hash, bound_to, expires_at)
        values (${merchantId}, ${PURPOSE}, ${hashOf(merchantId, code)}, ${bindingText(binding)},
                now() + make_interval(secs => ${PAYOUT_CODE_TTL_SECONDS}))
        on conflict (merchant_id, purpose) do update set
          code_hash = excluded.code_hash, bound_to = excluded.bound_to, attempts = 0,
          expires_at = excluded.expires_at, created_at = now()
        returning expires_at`;
      return { code, expiresAt: row!.expires_at };
    },

    async consume(merchantId, binding, code, onValid) {
      const outcome = await sql.begin(async (tx) => {
        const [row] = await tx<{ code_hash: Buffer; bound_to: string; attempts: number; live: boolean }[]>`
          select code_hash, bound_to, attempts, expires_at > now() as live from email_codes
          where merchant_id = ${merchantId} and purpose = ${PURPOSE} for update`;
        if (!row) return { ok: false as const };
        if (!row.live || row.attempts >= PAYOUT_CODE_MAX_ATTEMPTS) {
          await remove(tx, merchantId);
          return { ok: false as const };
        }
        const given = typeof code === "string" && CODE_PATTERN.test(code) ? code : "";
        // A right code for another destination counts as a wrong try: it is someone's guess too.
        const matches =
          given !== "" &&
          timingSafeEqual(hashOf(merchantId, given), row.code_hash) &&
          row.bound_to === bindingText(binding);
        if (!matches) {
          if (row.attempts + 1 >= PAYOUT_CODE_MAX_ATTEMPTS) await remove(tx, merchantId);
          else
            await tx`update email_codes set attempts = attempts + 1
              where merchant_id = ${merchantId} and purpose = ${PURPOSE}`;
          return { ok: false as const };
        }
        await remove(tx, merchantId);
        return { ok: true as const, value: await onValid(tx) };
      });
      // Thrown after the transaction so that the counted wrong try is committed.
      if (!outcome.ok) throw new GatewayError("code_invalid", { param: "otp" });
      return outcome.value as Awaited<ReturnType<typeof onValid>>;
    },
  };
}
