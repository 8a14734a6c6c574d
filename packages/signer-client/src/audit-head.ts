// The signer's audit log lives on its host; a log cut back there (or swapped for an older copy)
// would forget intents it signed. Every answer carries the chain's head, and callers keep the
// highest one they saw off the signer's host: a signer whose head is behind it is refused.
import type { AuditHeadValue, SignerClient } from "./client.js";

export interface AuditHeadStore {
  /** Keeps the highest head seen (a lower one changes nothing). */
  record(head: AuditHeadValue): Promise<void>;
  highest(): Promise<AuditHeadValue | undefined>;
}

export class SignerAuditRegressionError extends Error {
  override readonly name = "SignerAuditRegressionError";
}

export interface AuditHeadCheckOptions {
  /** How often the signer's head is compared with the stored one; default 60 s. */
  everyMs?: number;
}

/**
 * Wraps a client: before signing (at first use, then every `everyMs`) the signer's head must
 * not be behind the highest stored one, and each signature's head is stored. The stored head is
 * read before the signer's, so a head the signer reported since cannot make it look behind.
 */
export function withAuditHeadCheck(
  client: SignerClient,
  store: AuditHeadStore,
  options: AuditHeadCheckOptions = {},
): SignerClient {
  const everyMs = options.everyMs ?? 60_000;
  let checkedAt = Number.NEGATIVE_INFINITY;

  async function check(): Promise<void> {
    if (Date.now() - checkedAt < everyMs) return;
    const stored = await store.highest();
    const head = await client.getAuditHead();
    if (stored && head.seq < stored.seq) {
      throw new SignerAuditRegressionError(
        `the signer's audit log ends at entry ${head.seq}, but entry ${stored.seq} (${stored.hash}) was seen: it was cut back or restored; nothing is signed until an operator checks it`,
      );
    }
    // Cut back and grown again by as many entries (other callers' addresses and allow-list
    // changes also add entries): at the same length, another last entry is another log.
    if (stored && head.seq === stored.seq && head.hash !== stored.hash) {
      throw new SignerAuditRegressionError(
        `the signer's audit entry ${head.seq} is not the one seen (${stored.hash}): the log was cut back and written again; nothing is signed until an operator checks it`,
      );
    }
    checkedAt = Date.now();
  }

  return {
    ...client,
    deriveDepositAddress: (request) => client.deriveDepositAddress(request),
    getServiceAddresses: () => client.getServiceAddresses(),
    getAuditHead: () => client.getAuditHead(),
    requestPayoutDestination: (request) => client.requestPayoutDestination(request),
    cancelPayoutDestination: (request) => client.cancelPayoutDestination(request),
    listPayoutDestinations: (merchantId) => client.listPayoutDestinations(merchantId),
    close: () => client.close(),
    async sign(input) {
      await check();
      const signed = await client.sign(input);
      await store.record(signed.auditHead);
      return signed;
    },
    async signBatch(inputs) {
      await check();
      const outcomes = await client.signBatch(inputs);
      const head = outcomes.find((o) => o.ok);
      if (head?.ok) await store.record(head.signed.auditHead);
      return outcomes;
    },
  };
}
