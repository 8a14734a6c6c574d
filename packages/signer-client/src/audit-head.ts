// Callers keep the highest audit head they saw, off the signer's host, and check that the log
// still holds that exact entry (its hash, not its length) inside every sign request: a log cut
// back or swapped for an older copy would forget intents it signed.
import {
  type AuditHeadValue,
  type SignerClient,
  SignerRefusedError,
  type SignOptions,
  type SignOutcome,
} from "./client.js";

export interface AuditHeadStore {
  /** Keeps the highest head seen (a lower one changes nothing). */
  record(head: AuditHeadValue): Promise<void>;
  highest(): Promise<AuditHeadValue | undefined>;
}

/** Why a signer's log is refused: it ends before the entry seen, or holds another entry there. */
export type AuditRegression = "truncated" | "replaced";

export class SignerAuditRegressionError extends Error {
  override readonly name = "SignerAuditRegressionError";
  constructor(
    readonly reason: AuditRegression,
    message: string,
  ) {
    super(message);
  }
}

export interface AuditHeadCheckOptions {
  /** How often the stored head is read again and checked outside a signature; default 60 s. */
  everyMs?: number;
  /** Told of every regression before it is thrown (settlement logs it as an error and counts it). */
  onRegression?: (error: SignerAuditRegressionError) => void;
}

const NOT_HELD = "AUDIT_ENTRY_NOT_HELD";

/**
 * Wraps a client: every signature request names the highest entry this caller knows of (stored or
 * seen since), and the signer signs only while its log holds that entry; every signature's head is
 * stored. The stored head is read again every `everyMs` and checked with `getAuditEntry`, so a
 * regression is reported even when no signature is asked for.
 */
export function withAuditHeadCheck(
  client: SignerClient,
  store: AuditHeadStore,
  options: AuditHeadCheckOptions = {},
): SignerClient {
  const everyMs = options.everyMs ?? 60_000;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let known: AuditHeadValue | undefined;

  const seen = (head: AuditHeadValue) => {
    if (!known || head.seq > known.seq) known = head;
  };

  function regression(reason: AuditRegression, entry: AuditHeadValue): never {
    const what =
      reason === "truncated"
        ? `no longer holds entry ${entry.seq}, which was seen`
        : `holds another entry ${entry.seq} than the one seen (${entry.hash})`;
    const error = new SignerAuditRegressionError(
      reason,
      `the signer's audit log ${what}: it was cut back or restored; nothing is signed until an operator checks it (signer verify --head ${entry.seq}:${entry.hash})`,
    );
    options.onRegression?.(error);
    throw error;
  }

  async function check(): Promise<void> {
    if (Date.now() - checkedAt < everyMs) return;
    const stored = await store.highest();
    if (stored) seen(stored);
    if (known) {
      const entry = known;
      const held = await client.getAuditEntry(entry.seq);
      if (!held) regression("truncated", entry);
      if (held.hash !== entry.hash) regression("replaced", entry);
    }
    checkedAt = Date.now();
  }

  /** The signer refused because it no longer holds `expected`: which of the two it is. */
  async function refusedRegression(expected: AuditHeadValue): Promise<never> {
    const held = await client.getAuditEntry(expected.seq).catch(() => undefined);
    return regression(held ? "replaced" : "truncated", expected);
  }

  const withExpectation = (): SignOptions => ({ expectEntry: known });

  return {
    ...client,
    async sign(input) {
      await check();
      const expected = withExpectation();
      let signed: Awaited<ReturnType<SignerClient["sign"]>>;
      try {
        signed = await client.sign(input, expected);
      } catch (error) {
        if (error instanceof SignerRefusedError && error.refusal.code === NOT_HELD && expected.expectEntry)
          return refusedRegression(expected.expectEntry);
        throw error;
      }
      await store.record(signed.auditHead);
      seen(signed.auditHead);
      return signed;
    },
    async signBatch(inputs) {
      await check();
      const expected = withExpectation();
      const outcomes: SignOutcome[] = await client.signBatch(inputs, expected);
      if (expected.expectEntry && outcomes.some((o) => !o.ok && o.refusal.code === NOT_HELD))
        return refusedRegression(expected.expectEntry);
      const head = outcomes.find((o) => o.ok);
      if (head?.ok) {
        await store.record(head.signed.auditHead);
        seen(head.signed.auditHead);
      }
      return outcomes;
    },
  };
}
