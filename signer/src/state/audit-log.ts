// The audit log: one JSON line per decision, each carrying the hash of the line before, and the
// ledger the signer's state is replayed from at every start; a broken chain stops the signer.
// Its file, genesis marker and lock are storage (storage/audit-file.ts).
import { hash as oneShotHash } from "node:crypto";
import { forEachLine } from "../storage/line-file.js";
import type { LedgerRecord } from "./ledger.js";

export const GENESIS_HASH = "0".repeat(64);

export interface AuditDecision {
  /** signed, refused, genesis, or a policy rule's own decision (e.g. an allow-list change). */
  decision: string;
  intent: Record<string, unknown>;
  /** SHA-256 of the transaction bytes signed (or, refused, of the bytes received). */
  transaction?: string;
  signers?: string[];
  code?: string;
  reason?: string;
  /** Signed decisions: what the ledger keeps of them. */
  ledger?: LedgerRecord;
  /** Anything else a decision wants on record (the RPC, the caller's role). */
  [field: string]: unknown;
}

/** An entry as read back from the log: the decision with its place in the chain. */
export type AuditEntry = {
  seq: number;
  at: string;
  decision: string;
  ledger?: LedgerRecord;
  [field: string]: unknown;
};

export interface AuditHead {
  seq: number;
  hash: string;
}

/** Where an entry is (its sequence number, its byte in its file) and its hash: enough to read it back and know it unchanged. */
export interface AuditPlace {
  seq: number;
  offset: number;
  hash: string;
}

export interface AuditLog {
  append(decision: AuditDecision): AuditHead & AuditPlace;
  /**
   * The entry at `place`, read back from the file (or from the lines not yet written). Its hash
   * is computed again and must be `place.hash`: an entry edited since it was verified or written
   * is never returned.
   */
  read(place: AuditPlace): AuditEntry;
  head(): AuditHead;
  /** The hash of entry `seq` as the log holds it now; undefined when it holds no such entry. */
  hashAt(seq: number): string | undefined;
  /** Writes appended entries to the file now (`durable`: and to the disk); `sync` does both, async. */
  flush(durable?: boolean): void;
  sync(): Promise<void>;
  close(): void;
}

export class AuditChainError extends Error {
  override readonly name = "AuditChainError";
}

/** Hash of an entry: its body chained to the hash of the entry before. */
export function hashLine(prev: string, body: string): string {
  return oneShotHash("sha256", `${prev}\n${body}`, "hex");
}

/** The line of entry `head.seq + 1` recording `decision` at `at`, and the head it makes. */
export function entryLine(head: AuditHead, at: Date, decision: AuditDecision) {
  const seq = head.seq + 1;
  // The entry's own fields first, then the decision's, without copying the decision into a new object.
  const body = `{"seq":${seq},"at":"${at.toISOString()}","prev":"${head.hash}",${JSON.stringify(decision).slice(1)}`;
  const hash = hashLine(head.hash, body);
  return { line: `${body.slice(0, -1)},"hash":"${hash}"}`, head: { seq, hash } };
}

/** The hash of the entry in `line`, if the line is entry `seq` and hashes to what it says. */
export function hashOfLine(line: string, seq: number): string | undefined {
  const parsed = parseLine(line);
  if (typeof parsed === "string" || parsed.entry.seq !== seq) return undefined;
  return hashLine(String(parsed.entry.prev), parsed.body) === parsed.hash ? parsed.hash : undefined;
}

/** The entry in `line`, read back from `place`, if it still hashes to `place.hash`. */
export function entryAt(line: string, place: AuditPlace, path: string): AuditEntry {
  const parsed = parseLine(line);
  if (typeof parsed === "string" || hashLine(String(parsed.entry.prev), parsed.body) !== place.hash)
    throw new AuditChainError(`${path} byte ${place.offset}: not the entry verified there`);
  return parsed.entry;
}

export type AuditVerification =
  | { ok: true; entries: number; lastHash: string }
  | { ok: false; entries: number; line: number; problem: string };

type Visit = (entry: AuditEntry, hash: string, offset: number) => void;
type Parsed = { entry: AuditEntry & { prev?: unknown }; body: string; hash: string };

/** A line as its entry, the body its hash covers and that hash; or what is wrong with it. */
function parseLine(line: string): Parsed | string {
  const match = /^(\{.*),"hash":"([0-9a-f]{64})"\}$/.exec(line);
  if (!match) return "line is not an audit entry";
  const body = `${match[1]}}`;
  try {
    return { entry: JSON.parse(body), body, hash: match[2]! };
  } catch {
    return "line is not JSON";
  }
}

export const CHECKPOINT = "checkpoint";

/**
 * Checks the chain in the file at `path`, line by line (read a few MiB at a time, never whole):
 * sequence numbers, links and hashes; hands each entry to `visit`. A file that begins with a
 * checkpoint (a live segment after a rotation, or an archived one) starts the chain there: that
 * line's own hash is checked, its link to the segment before it is the caller's to check.
 */
export function verifyAuditFile(path: string, visit?: Visit): AuditVerification {
  let prev = GENESIS_HASH;
  let entries = 0;
  let problem: string | undefined;
  forEachLine(path, (line, offset) => {
    const parsed = parseLine(line);
    if (
      typeof parsed !== "string" &&
      entries === 0 &&
      parsed.entry.decision === CHECKPOINT &&
      parsed.entry.seq > 1
    ) {
      [prev, entries] = [String(parsed.entry.prev), parsed.entry.seq - 1];
    }
    if (typeof parsed === "string") problem = parsed;
    else if (parsed.entry.seq !== entries + 1)
      problem = `sequence number ${String(parsed.entry.seq)}, expected ${entries + 1}`;
    else if (parsed.entry.prev !== prev) problem = "link to the previous line is broken";
    else if (hashLine(prev, parsed.body) !== parsed.hash) problem = "hash does not match the line";
    if (problem || typeof parsed === "string") return false;
    visit?.(parsed.entry, parsed.hash, offset);
    [prev, entries] = [parsed.hash, entries + 1];
    return true;
  });
  return problem ? { ok: false, entries, line: entries + 1, problem } : { ok: true, entries, lastHash: prev };
}
