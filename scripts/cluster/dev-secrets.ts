import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { generateApproverKey } from "@gateway/signer-client";
import { generateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";

export interface DevSecrets {
  JWT_SECRET: string;
  WEBHOOK_SECRET_KEY: string;
  /** The development signer's seed (SIGNER_SEED_MNEMONIC works only with SIGNER_ENV=development). */
  SIGNER_SEED_MNEMONIC: string;
  /** Approval keys: settlement approves refunds, the API approves payouts after the OTP check. */
  SETTLEMENT_APPROVER: { keyId: string; seed: string; publicKey: string };
  API_APPROVER: { keyId: string; seed: string; publicKey: string };
  /** The watchers attest final transfers with this one; the signer refunds only attested ones. */
  WATCHER_ATTESTOR?: { keyId: string; seed: string; publicKey: string };
}

/**
 * Secrets for a development cluster, made once and kept in the data folder (mode 0600), so
 * sessions, webhook secrets and deposit addresses survive a restart. Never used outside
 * development; production loads a sealed seed and secrets from its own store.
 */
export function loadDevSecrets(file: string): DevSecrets {
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<DevSecrets>) : {};
  // Secrets an older runner did not make yet are added; existing ones never change. Scheduled
  // payouts need no key any more (the signer pays only the linked wallet): an old one is dropped.
  const secrets: DevSecrets = {
    JWT_SECRET: kept.JWT_SECRET ?? randomBytes(32).toString("base64url"),
    WEBHOOK_SECRET_KEY: kept.WEBHOOK_SECRET_KEY ?? randomBytes(32).toString("base64"),
    SIGNER_SEED_MNEMONIC: kept.SIGNER_SEED_MNEMONIC ?? generateMnemonic(wordlist, 256),
    SETTLEMENT_APPROVER: kept.SETTLEMENT_APPROVER ?? { keyId: "settlement-dev", ...generateApproverKey() },
    API_APPROVER: kept.API_APPROVER ?? { keyId: "api-dev", ...generateApproverKey() },
    WATCHER_ATTESTOR: kept.WATCHER_ATTESTOR ?? { keyId: "watcher-dev", ...generateApproverKey() },
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

export function trustedApprovers(secrets: DevSecrets): string {
  return JSON.stringify([
    {
      keyId: secrets.SETTLEMENT_APPROVER.keyId,
      approves: "refund",
      publicKey: secrets.SETTLEMENT_APPROVER.publicKey,
    },
    { keyId: secrets.API_APPROVER.keyId, approves: "payout", publicKey: secrets.API_APPROVER.publicKey },
    ...(secrets.WATCHER_ATTESTOR
      ? [
          {
            keyId: secrets.WATCHER_ATTESTOR.keyId,
            approves: "transfer",
            publicKey: secrets.WATCHER_ATTESTOR.publicKey,
          },
        ]
      : []),
  ]);
}
