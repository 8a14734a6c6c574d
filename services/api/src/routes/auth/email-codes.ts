import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import type { Sql, TransactionSql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";

/** Codes have 6 digits, live 10 minutes, and 5 wrong tries void them (docs/dashboard.md, "One-time codes"). */
export const CODE_TTL_SECONDS = 600;
export const CODE_MAX_ATTEMPTS = 5;
const CODE_PATTERN = /^\d{6}$/;

export interface IssueCode {
  merchantId: string;
  /** What the code is for (`verify_email`, `payout_wallet`, ...); one live code per purpose. */
  purpose: string;
  /** What the code authorises; `consume` refuses it for anything else. */
  boundTo?: string;
}

export interface IssueCodeFor extends IssueCode {
  /** How long the code lives; CODE_TTL_SECONDS unless given (an invitation lives longer). */
  ttlSeconds?: number;
}

export interface ConsumeCode<T> extends IssueCode {
  code: unknown;
  /** The request field that carried the code, for the error's `param`. */
  param: string;
  /** Runs in the transaction that consumes the code, so the code is spent only if this commits. */
  onValid: (tx: TransactionSql) => Promise<T>;
}

export interface EmailCodes {
  /** A fresh code, replacing any live one for the same merchant and purpose. */
  issue(input: IssueCodeFor): Promise<{ code: string; expiresAt: Date }>;
  /** Spends a matching code and runs `onValid`; otherwise counts a wrong try and throws `code_invalid`. */
  consume<T>(input: ConsumeCode<T>): Promise<T>;
}

export interface EmailCodesOptions {
  sql: Sql;
  secret: string;
  /** Derives this family's HMAC key from the secret: codes of one family never check in another. */
  keyLabel?: string;
  /** A fresh 6-digit code; a uniformly random one unless given. */
  newCode?: () => string;
}

const randomCode = () => String(randomInt(0, 1_000_000)).padStart(6, "0");

/**
 * One-time codes sent by e-mail. Only an HMAC of each code is stored, keyed by a server secret
 * and bound to merchant and purpose, so the table alone does not give the codes away (a plain
 * hash of a 6-digit number would be reversed in a millisecond).
 */
export function createEmailCodes({
  sql,
  secret,
  keyLabel = "gateway email codes v1",
  newCode = randomCode,
}: EmailCodesOptions): EmailCodes {
  const key = createHmac("sha256", secret).update(keyLabel).digest();
  const hashOf = (merchantId: string, purpose: string, code: string) =>
    createHmac("sha256", key).update(`${merchantId}\n${purpose}\n${code}`).digest();

  return {
    async issue({ merchantId, purpose, boundTo = "", ttlSeconds = CODE_TTL_SECONDS }) {
      const code = newCode();
      const [row] = await sql<{ expires_at: Date }[]>`
        insert into email_codes (merchant_id, purpose, code_hash, bound_to, expires_at)
        values (${merchantId}, ${purpose}, ${hashOf(merchantId, purpose, code)}, ${boundTo},
                now() + make_interval(secs => ${ttlSeconds}))
        on conflict (merchant_id, purpose) do update set
          code_hash = excluded.code_hash, bound_to = excluded.bound_to, attempts = 0,
          expires_at = excluded.expires_at, created_at = now()
        returning expires_at`;
      return { code, expiresAt: row!.expires_at };
    },

    async consume({ merchantId, purpose, boundTo = "", code, param, onValid }) {
      const outcome = await sql.begin(async (tx) => {
        const [row] = await tx<{ code_hash: Buffer; bound_to: string; attempts: number; live: boolean }[]>`
          select code_hash, bound_to, attempts, expires_at > now() as live from email_codes
          where merchant_id = ${merchantId} and purpose = ${purpose} for update`;
        if (!row) return { ok: false as const };
        if (!row.live || row.attempts >= CODE_MAX_ATTEMPTS) {
          await tx`delete from email_codes where merchant_id = ${merchantId} and purpose = ${purpose}`;
          return { ok: false as const };
        }
        const given = typeof code === "string" && CODE_PATTERN.test(code) ? code : "";
        // A right code bound to something else counts as a wrong try: it is someone's guess too.
        const matches =
          given !== "" &&
          timingSafeEqual(hashOf(merchantId, purpose, given), row.code_hash) &&
          row.bound_to === boundTo;
        if (!matches) {
          if (row.attempts + 1 >= CODE_MAX_ATTEMPTS) {
            await tx`delete from email_codes where merchant_id = ${merchantId} and purpose = ${purpose}`;
          } else {
            await tx`update email_codes set attempts = attempts + 1
              where merchant_id = ${merchantId} and purpose = ${purpose}`;
          }
          return { ok: false as const };
        }
        await tx`delete from email_codes where merchant_id = ${merchantId} and purpose = ${purpose}`;
        return { ok: true as const, value: await onValid(tx) };
      });
      // Thrown after the transaction so that the counted wrong try is committed.
      if (!outcome.ok) throw new GatewayError("code_invalid", { param });
      return outcome.value as Awaited<ReturnType<typeof onValid>>;
    },
  };
}
