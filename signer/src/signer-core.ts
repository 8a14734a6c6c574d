// The decisions, independent of transport: check an intent and its approval, check its transaction
// or take the one bound to its id, apply the rules, sign and audit, synchronously per request. One
// transaction per intent id, ever (docs/signer.md, "Exactly once").
import { hash } from "node:crypto";
import { RefusalCode, type SignRequest } from "@gateway/signer-proto";
import type { Logger } from "pino";
import { type AddressBook, createAddressBook, type IssuedIndices } from "./addresses.js";
import { signerChain } from "./chains/index.js";
import type { SignatureValue } from "./chains/signer-chain.js";
import { createDestinationDesk, type DestinationDesk } from "./destinations.js";
import type { ApprovalVerifier } from "./intents/approvals.js";
import { auditView, intentEffect, parseIntent } from "./intents/intent.js";
import type { Keyring } from "./keys/keyring.js";
import type { PayoutPolicy } from "./policy/payouts.js";
import { Refusal, refusalCodeName, refuse } from "./refusal.js";
import type { AuditHead, AuditLog } from "./state/audit-log.js";
import type { IntentLedger, SigningPlan } from "./state/ledger.js";
import type { SignerIntent, SignerLimits } from "./vocabulary.js";

export interface SignerCoreDeps {
  keyring: Keyring;
  approvals: ApprovalVerifier;
  ledger: IntentLedger;
  audit: AuditLog;
  limits: SignerLimits;
  log: Logger;
  /** The payout policy, which keeps the merchants' payout allow-lists; without it those RPCs are refused. */
  payouts?: PayoutPolicy | undefined;
  /** The deposit indices handed out; with it, none is handed out twice. */
  issued?: IssuedIndices;
  now?: () => Date;
}

export type SignOutcome =
  | { ok: true; response: { intentId: string; signatures: SignatureValue[]; transaction: Uint8Array } }
  | { ok: false; refusal: { intentId: string; code: RefusalCode; reason: string } };

/** An audit entry a caller saw: its sequence number and hash. */
export type ExpectedEntry = { seq: bigint; hash: string };

export interface SignerCore extends AddressBook, DestinationDesk {
  /**
   * Decides one request; the decision is audited but not yet synced to disk. With `expect` (or
   * the request's own `expectEntry`), nothing is signed unless the log still holds that entry.
   */
  decide(request: SignRequest, expect?: ExpectedEntry): SignOutcome;
  /** Whether the log still holds exactly this entry. */
  holds(entry: ExpectedEntry): boolean;
  /** Resolves when every decision so far is on disk. Call before answering. */
  sync(): Promise<void>;
  /** The audit chain's newest entry. */
  auditHead(): AuditHead;
  /** Entry `seq` as the log holds it now; undefined when it holds no such entry. */
  auditEntry(seq: number): AuditHead | undefined;
}

// One-shot hashing: a third of the cost of a Hash object per call.
const sha256Hex = (bytes: Uint8Array) => hash("sha256", bytes, "hex");
const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");

export function createSignerCore(deps: SignerCoreDeps): SignerCore {
  const { audit, log, payouts } = deps;
  const now = deps.now ?? (() => new Date());
  // The log only grows while the process runs: an entry found once is held for good.
  let lastHeld: ExpectedEntry | undefined;
  function holds(entry: ExpectedEntry): boolean {
    if (lastHeld && lastHeld.seq === entry.seq && lastHeld.hash === entry.hash) return true;
    const held =
      entry.seq <= BigInt(Number.MAX_SAFE_INTEGER) && audit.hashAt(Number(entry.seq)) === entry.hash;
    if (held) lastHeld = entry;
    return held;
  }

  /** Audits and logs a refusal; an error that is not a Refusal is refused as UNSPECIFIED. */
  function refused(request: SignRequest, error: unknown, intent?: SignerIntent): SignOutcome {
    const refusal =
      error instanceof Refusal
        ? error
        : new Refusal(RefusalCode.UNSPECIFIED, "internal error while checking", { cause: error });
    const intentId = request.intent?.intentId ?? "";
    audit.append({
      decision: "refused",
      intent: intent ? auditView(intent) : { intentId },
      transaction: sha256Hex(request.unsignedTransaction),
      code: refusalCodeName(refusal.code),
      reason: refusal.message,
    });
    if (refusal.code === RefusalCode.UNSPECIFIED) log.error({ err: error, intentId }, "check failed");
    log.warn({ intentId, code: refusalCodeName(refusal.code), reason: refusal.message }, "intent refused");
    return { ok: false, refusal: { intentId, code: refusal.code, reason: refusal.message } };
  }

  return {
    ...createAddressBook(deps.keyring, deps.issued && { indices: deps.issued, audit }),
    ...createDestinationDesk({ approvals: deps.approvals, audit, log, payouts, now }),

    holds,

    decide(request, expect = request.expectEntry) {
      let intent: SignerIntent | undefined;
      try {
        if (expect && !holds(expect))
          refuse(
            RefusalCode.AUDIT_ENTRY_NOT_HELD,
            `this log no longer holds audit entry ${expect.seq} as the caller saw it: it was cut back or replaced`,
          );
        intent = parseIntent(request.intent);
        return sign(deps, request, intent, now());
      } catch (error) {
        return refused(request, error, intent);
      }
    },

    sync: () => audit.sync(),
    auditHead: () => audit.head(),
    auditEntry(seq) {
      const hash = audit.hashAt(seq);
      return hash === undefined ? undefined : { seq, hash };
    },
  };
}

/** Signs a first signing or a repeat, if the ledger's rules allow it, and audits it. */
function sign(deps: SignerCoreDeps, request: SignRequest, intent: SignerIntent, at: Date): SignOutcome {
  const { ledger, audit } = deps;
  const chain = signerChain(intent.chain);
  const keys = keysOf(deps.keyring, intent);
  const signing = plan(deps, intent, request, keys);
  ledger.check(signing, at);
  const signatures = signing.signers.map((address) =>
    chain.sign([keys.gas, keys.source].find((k) => k.address === address)!, signing.transaction),
  );
  const record = ledger.record(signing, at);
  const placed = audit.append({
    decision: "signed",
    intent: auditView(intent),
    transaction: sha256Hex(signing.transaction),
    signers: signing.signers,
    ledger: record,
    ...(signing.first && { txidBase64: base64(chain.txid(signing.transaction, signatures)) }),
  });
  // A repeat from here on reads the bound transaction back from this entry.
  if (signing.first) ledger.bind(intent.intentId, placed);
  deps.log.debug({ intentId: intent.intentId, first: signing.first }, "intent signed");
  return { ok: true, response: { intentId: intent.intentId, signatures, transaction: signing.transaction } };
}

/** Whose keys an intent may use: the mode's gas wallet, and the deposit (sweep) or the vault. */
function keysOf(keyring: Keyring, intent: SignerIntent) {
  const { chain, mode, action } = intent;
  const vault = keyring.key(chain, "vault", mode);
  const source = action.kind === "sweep" ? keyring.key(chain, "deposit", mode, action.depositIndex) : vault;
  return { gas: keyring.key(chain, "gas", mode), vault, source };
}
type Keys = ReturnType<typeof keysOf>;

/** The bound transaction again (a repeat), or the request's, checked against the intent (a first signing). */
function plan(deps: SignerCoreDeps, intent: SignerIntent, request: SignRequest, keys: Keys): SigningPlan {
  const { gas, vault, source } = keys;
  const bound = deps.ledger.bound(intent.intentId);
  if (bound) {
    if (bound.effect !== intentEffect(intent))
      refuse(RefusalCode.REPLAY, "intent id was signed before for another effect");
    // The bytes sent are ignored: the answer is the transaction signed the first time. Its
    // approval was checked then; a repeat moves nothing new, so it needs none (a payout put
    // back after a restore of PostgreSQL has lost its approval: docs/signer.md, "Repeats").
    return { ...bound, intent, first: false, locks: [] };
  }
  deps.approvals.verify(intent);
  const action = intent.action;
  const destination =
    action.kind === "sweep" || action.kind === "nonce_account" ? vault.address : action.destination;
  const parties = { gas: gas.address, source: source.address, destination, sourceKey: source.publicKey };
  const checked = signerChain(intent.chain).check(request, intent, parties, deps.limits);
  return { intent, first: true, transaction: request.unsignedTransaction, ...checked };
}
