// The audit log's file: opened under its lock, checked against its genesis marker, verified and
// replayed from its first line, then appended to. What an entry is and how the chain is checked
// is the decision core's (state/audit-log.ts).
import { randomUUID } from "node:crypto";
import { existsSync, statSync, writeFileSync } from "node:fs";
import {
  AuditChainError,
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditPlace,
  entryAt,
  entryLine,
  GENESIS_HASH,
  verifyAuditFile,
} from "../state/audit-log.js";
import { type AppendFile, openAppendFile } from "./append-file.js";

export interface OpenAuditLogOptions {
  now?: () => Date;
  /** Called for every verified entry, oldest first, before the log opens for writing. */
  replay?: (entry: AuditEntry, place: AuditPlace) => void;
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
  const logExists = existsSync(path) && statSync(path).size > 0;
  if (!logExists && existsSync(marker))
    throw new AuditChainError(
      `${path} is missing or empty beside ${marker}: restore it; the signer will not start afresh`,
    );
  if (logExists && !existsSync(marker))
    throw new AuditChainError(`${marker} is missing beside ${path}: the log's origin cannot be checked`);
  let head: AuditHead = { seq: 0, hash: GENESIS_HASH };
  if (logExists) {
    const verified = verifyAuditFile(
      path,
      replay && ((entry, hash, offset) => replay(entry, { offset, hash })),
    );
    if (!verified.ok)
      throw new AuditChainError(
        `${path} line ${verified.line}: ${verified.problem}; the signer will not start`,
      );
    head = { seq: verified.entries, hash: verified.lastHash };
  }
  const log: AuditLog = {
    append(decision) {
      const entry = entryLine(head, now(), decision);
      const offset = file.appendLine(entry.line);
      head = entry.head;
      return { ...head, offset };
    },
    read: (place) => entryAt(file.readLine(place.offset), place, path),
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
