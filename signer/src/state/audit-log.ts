// The audit log: one JSON line per decision, each carrying the hash of the line before, so
// removing, reordering or editing a line breaks the chain. It is also the ledger: signed
// decisions carry the record the signer's state is rebuilt from, so the whole chain is verified
// and replayed at every start, and a broken chain stops the signer.
import { hash as oneShotHash, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { type AppendFile, openAppendFile } from "../storage/append-file.js";
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

export interface AuditLog {
  append(decision: AuditDecision): AuditHead;
  head(): AuditHead;
  /** Writes appended entries to the file now (`durable`: and to the disk); `sync` does both, async. */
  flush(durable?: boolean): void;
  sync(): Promise<void>;
  close(): void;
}

export class AuditChainError extends Error {
  override readonly name = "AuditChainError";
}

export interface OpenAuditLogOptions {
  now?: () => Date;
  /** Called for every verified entry, oldest first, before the log opens for writing. */
  replay?: (entry: AuditEntry) => void;
}

function hashLine(prev: string, body: string): string {
  return oneShotHash("sha256", `${prev}\n${body}`, "hex");
}

/**
 * Beside the log, a marker written when the log is created. A log that is gone while its
 * marker is there was deleted or lost, and starting afresh would forget every intent signed
 * and reset today's totals: the signer refuses that.
 */
export const genesisMarkerPath = (path: string) => `${path}.genesis`;

export function openAuditLog(path: string, options: OpenAuditLogOptions = {}): AuditLog {
  // The lock first: a second signer on the same files must fail on it, whatever they hold.
  const file = openAppendFile(path);
  try {
    return openLocked(path, file, options);
  } catch (error) {
    file.close();
    throw error;
  }
}

function openLocked(path: string, file: AppendFile, { now = () => new Date(), replay }: OpenAuditLogOptions) {
  const marker = genesisMarkerPath(path);
  const logExists = existsSync(path) && readFileSync(path).length > 0;
  if (!logExists && existsSync(marker))
    throw new AuditChainError(
      `${path} is missing or empty beside ${marker}: restore it; the signer will not start afresh`,
    );
  if (logExists && !existsSync(marker))
    throw new AuditChainError(`${marker} is missing beside ${path}: the log's origin cannot be checked`);
  let head: AuditHead = { seq: 0, hash: GENESIS_HASH };
  if (logExists) {
    const verified = verifyAuditLog(readFileSync(path, "utf8"), replay);
    if (!verified.ok)
      throw new AuditChainError(
        `${path} line ${verified.line}: ${verified.problem}; the signer will not start`,
      );
    head = { seq: verified.entries, hash: verified.lastHash };
  }
  const log: AuditLog = {
    append(decision) {
      const seq = head.seq + 1;
      // The entry's own fields first, then the decision's, without copying the decision into a new object.
      const body = `{"seq":${seq},"at":"${now().toISOString()}","prev":"${head.hash}",${JSON.stringify(decision).slice(1)}`;
      const hash = hashLine(head.hash, body);
      file.appendLine(`${body.slice(0, -1)},"hash":"${hash}"}`);
      head = { seq, hash };
      return head;
    },
    head: () => head,
    flush: (durable) => file.flush(durable),
    sync: () => file.sync(),
    close: () => file.close(),
  };
  if (!logExists) {
    // A new chain starts with a genesis entry, so a log that ever existed is never empty.
    const id = randomUUID();
    // The genesis line is on disk before its marker: a marker never stands beside an empty log.
    log.append({ decision: "genesis", intent: {}, chain: id });
    log.flush(true);
    writeFileSync(marker, `${JSON.stringify({ id, created: now().toISOString() })}\n`, { mode: 0o600 });
  }
  return log;
}

export type AuditVerification =
  | { ok: true; entries: number; lastHash: string }
  | { ok: false; entries: number; line: number; problem: string };

/** Checks the whole chain: sequence numbers, links and hashes; hands each entry to `visit`. */
export function verifyAuditLog(
  contents: string,
  visit?: (entry: AuditEntry, hash: string) => void,
): AuditVerification {
  const lines = contents.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let prev = GENESIS_HASH;
  for (const [i, line] of lines.entries()) {
    const fail = (problem: string): AuditVerification => ({ ok: false, entries: i, line: i + 1, problem });
    const match = /^(\{.*),"hash":"([0-9a-f]{64})"\}$/.exec(line);
    if (!match) return fail("line is not an audit entry");
    const body = `${match[1]}}`;
    let entry: AuditEntry & { prev?: unknown };
    try {
      entry = JSON.parse(body);
    } catch {
      return fail("line is not JSON");
    }
    if (entry.seq !== i + 1) return fail(`sequence number ${String(entry.seq)}, expected ${i + 1}`);
    if (entry.prev !== prev) return fail("link to the previous line is broken");
    const hash = hashLine(prev, body);
    if (hash !== match[2]) return fail("hash does not match the line");
    visit?.(entry, hash);
    prev = hash;
  }
  return { ok: true, entries: lines.length, lastHash: prev };
}
