import { GatewayError } from "@gateway/errors";
import type { RateLimiter } from "../../http/rate-limit.js";

export interface Limit {
  limit: number;
  windowSeconds: number;
}

/**
 * Counts one attempt against each bucket and refuses with 429 `too_many_attempts` when any is
 * over its limit. Every bucket is counted, so an attacker cannot dodge the per-account count by
 * spreading over IPs or the per-IP count by spreading over accounts.
 */
export async function throttle(limiter: RateLimiter, buckets: [string, Limit][]): Promise<void> {
  const waits = await Promise.all(
    buckets.map(([bucket, { limit, windowSeconds }]) => limiter.hit(bucket, limit, windowSeconds)),
  );
  const wait = Math.max(...waits);
  if (wait > 0) throw new GatewayError("too_many_attempts", { headers: { "Retry-After": String(wait) } });
}

/**
 * Attempt budgets. Per IP they bound one client's guessing across accounts; per account they
 * bound a distributed attack on one account (and let it through to its owner once the window
 * turns). Codes are also voided after 5 wrong tries, so guessing a code needs fresh codes, and
 * fresh codes are bounded by the mail budget.
 */
export const LIMITS = {
  signupPerIp: { limit: 10, windowSeconds: 3600 },
  /** Mails an address can be sent by sign-up in an hour, whoever asks. */
  mailPerAccount: { limit: 5, windowSeconds: 3600 },
  verifyPerIp: { limit: 30, windowSeconds: 600 },
  verifyPerAccount: { limit: 10, windowSeconds: 600 },
  loginPerIp: { limit: 30, windowSeconds: 300 },
  loginPerAccount: { limit: 10, windowSeconds: 900 },
  /** Codes mailed to one account in an hour: for a payout wallet, and for payouts. */
  walletCodesPerAccount: { limit: 5, windowSeconds: 3600 },
  payoutCodesPerAccount: { limit: 10, windowSeconds: 3600 },
  /** Tries at a second factor (TOTP, recovery code, passkey) per member and per address. */
  secondFactorPerUser: { limit: 10, windowSeconds: 600 },
  secondFactorPerIp: { limit: 30, windowSeconds: 600 },
  /** Invitations sent by one merchant in an hour, and tries at invitation codes per address. */
  invitationsPerMerchant: { limit: 20, windowSeconds: 3600 },
  acceptPerIp: { limit: 30, windowSeconds: 600 },
  /** Tries at a mailed code (a payout wallet's, a payout's) per account. */
  codeTriesPerAccount: { limit: 20, windowSeconds: 600 },
} as const satisfies Record<string, Limit>;
