// The audit log's files: opened under their lock, checked against the genesis marker, verified
// and replayed from the newest checkpoint (or the first line), then appended to. A checkpoint
// writes the state beside the chain, records its hash in a checkpoint entry and rotates the live
// segment into the archive (docs/signer.md, "Checkpoints"). What an entry is and how the chain is
// checked is the decision core's (state/audit-log.ts).
import { createHash, randomUUID } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import {
  AuditChainError,
  type AuditDecision,
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditPlace,
  CHECKPOINT,
  entryAt,
  entryLine,
  GENESIS_HASH,
  hashOfLine,
  verifyAuditFile,
} from "../state/audit-log.js";
import { type AppendFile, acquireLock, openAppendFile } from "./append-file.js";
import {
  archiveDir,
  archivedHashAt,
  archivedLine,
  archivedSegments,
  checkpointDir,
  readState,
  type Segment,
  segmentHolding,
  segmentName,
  stateName,
} from "./audit-segments.js";
import { EntryOffsets } from "./entry-offsets.js";

export interface OpenAuditLogOptions {
  now?: () => Date;
  /** Called for every verified entry after the newest checkpoint, oldest first, before the log opens for writing. */
  replay?: (entry: AuditEntry, place: AuditPlace) => void;
  /** Called first with the newest checkpoint's state, when the live segment begins with one. */
  restore?: (state: Buffer, checkpoint: AuditEntry) => void;
}

/** The entry at a place is in an archived segment that is no longer on this host. */
export class ArchivedEntryError extends Error {
  override readonly name = "ArchivedEntryError";
  constructor(
    readonly seq: number,
    where: string,
  ) {
    super(`audit entry ${seq} is in an archived segment that is not on this host (${where})`);
  }
}

export interface AuditFile extends AuditLog {
  /** Entries appended since the newest checkpoint (or genesis), and when that was (Unix ms). */
  sinceCheckpoint(): { entries: number; since: number };
  /**
   * Writes `state` beside the chain, appends a checkpoint entry naming its hash (with `fields`),
   * and rotates the live segment into the archive. Everything appended before is on disk first.
   */
  checkpoint(state: Buffer, fields: Record<string, unknown>): AuditHead;
}

/**
 * Beside the log, a marker written when the log is created. A log that is gone while its
 * marker is there was deleted or lost, and starting afresh would forget every intent signed
 * and reset today's totals: the signer refuses that.
 */
export const genesisMarkerPath = (path: string) => `${path}.genesis`;
const nextPath = (path: string) => `${path}.next`;
const STATE_FILES_KEPT = 2;

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeDurably(path: string, bytes: Buffer | string): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, bytes, { mode: 0o600 });
  fsyncPath(temporary);
  renameSync(temporary, path);
  fsyncPath(dirname(path));
}

/** A rotation cut short between its two renames left the new live segment under its temporary name. */
function finishRotation(path: string): void {
  if (!existsSync(nextPath(path))) return;
  if (existsSync(path)) rmSync(nextPath(path));
  else renameSync(nextPath(path), path);
}

export function openAuditLog(path: string, options: OpenAuditLogOptions = {}): AuditFile {
  // The lock first: a second signer on the same files must fail on it, whatever they hold.
  mkdirSync(dirname(path), { recursive: true });
  const lockPath = `${path}.lock`;
  acquireLock(lockPath);
  try {
    finishRotation(path);
    return openLocked(path, options, () => rmSync(lockPath, { force: true }));
  } catch (error) {
    rmSync(lockPath, { force: true });
    throw error;
  }
}

function chainIdOf(marker: string): string | undefined {
  return existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as { id?: string }).id : undefined;
}

function openLocked(
  path: string,
  { now = () => new Date(), replay, restore }: OpenAuditLogOptions,
  unlock: () => void,
) {
  const marker = genesisMarkerPath(path);
  const logExists = existsSync(path) && statSync(path).size > 0;
  if (!logExists && existsSync(marker))
    throw new AuditChainError(
      `${path} is missing or empty beside ${marker}: restore it; the signer will not start afresh`,
    );
  if (logExists && !existsSync(marker))
    throw new AuditChainError(`${marker} is missing beside ${path}: the log's origin cannot be checked`);
  let head: AuditHead = { seq: 0, hash: GENESIS_HASH };
  let offsets = new EntryOffsets(1);
  let since = now().getTime();
  if (logExists) {
    const verified = verifyAuditFile(path, (entry, hash, offset) => {
      if (offsets.size === 0) offsets = new EntryOffsets(entry.seq);
      offsets.push(offset);
      if (entry.decision === CHECKPOINT && offsets.size === 1) {
        if (entry.chain !== chainIdOf(marker))
          throw new AuditChainError(`${path} begins with a checkpoint of another chain than ${marker}`);
        since = Date.parse(String(entry.at));
        restore?.(readState(path, entry), entry);
      } else replay?.(entry, { seq: entry.seq, offset, hash });
    });
    if (!verified.ok)
      throw new AuditChainError(
        `${path} line ${verified.line}: ${verified.problem}; the signer will not start`,
      );
    head = { seq: verified.entries, hash: verified.lastHash };
  }
  let file: AppendFile = openAppendFile(path, { locked: true });
  let archived: Segment[] = archivedSegments(path);

  function append(decision: AuditDecision) {
    const entry = entryLine(head, now(), decision);
    const offset = file.appendLine(entry.line);
    offsets.push(offset);
    head = entry.head;
    return { ...head, offset, line: entry.line };
  }

  function lineOf(seq: number): string | undefined {
    const offset = offsets.at(seq);
    return offset === undefined ? undefined : file.readLine(offset);
  }

  /** Rotates the live segment, which ends with the checkpoint `line`, into the archive. */
  function rotate(line: string): void {
    const first = offsets.first;
    writeDurably(nextPath(path), `${line}\n`);
    mkdirSync(archiveDir(path), { recursive: true });
    const segment = join(archiveDir(path), segmentName(first, head.seq));
    file.close();
    renameSync(path, segment);
    fsyncPath(archiveDir(path));
    renameSync(nextPath(path), path);
    fsyncPath(dirname(path));
    file = openAppendFile(path, { locked: true });
    archived = [...archived, { first, last: head.seq, file: segment }];
    offsets = new EntryOffsets(head.seq);
    offsets.push(0);
  }

  function writeState(seq: number, state: Buffer) {
    mkdirSync(checkpointDir(path), { recursive: true });
    const name = stateName(seq);
    writeDurably(join(checkpointDir(path), name), state);
    // The newest state files are enough to start; older ones are verified offline only if kept.
    const older = readdirSync(checkpointDir(path))
      .filter((f) => f.endsWith(".state"))
      .sort();
    for (const f of older.slice(0, -STATE_FILES_KEPT)) rmSync(join(checkpointDir(path), f));
    return { file: name, sha256: createHash("sha256").update(state).digest("hex"), bytes: state.length };
  }

  const log: AuditFile = {
    append: (decision) => {
      const { line: _line, ...placed } = append(decision);
      return placed;
    },
    read(place) {
      if (place.seq >= offsets.first) return entryAt(file.readLine(place.offset), place, path);
      const segment = segmentHolding(archived, place.seq);
      if (!segment || !existsSync(segment.file)) throw new ArchivedEntryError(place.seq, archiveDir(path));
      return entryAt(archivedLine(segment, place.offset), place, segment.file);
    },
    head: () => head,
    hashAt(seq) {
      if (seq === head.seq) return head.hash;
      if (seq < 1 || seq > head.seq) return undefined;
      if (seq >= offsets.first) {
        const line = lineOf(seq);
        return line === undefined ? undefined : hashOfLine(line, seq);
      }
      return archivedHashAt(segmentHolding(archived, seq), seq);
    },
    sinceCheckpoint: () => ({ entries: head.seq - offsets.first, since }),
    checkpoint(state, fields) {
      file.flush(true);
      const seq = head.seq + 1;
      const written = writeState(seq, state);
      const { line } = append({
        decision: CHECKPOINT,
        intent: {},
        chain: chainIdOf(marker),
        state: written,
        ...fields,
      });
      file.flush(true);
      rotate(line);
      since = now().getTime();
      return head;
    },
    flush: (durable) => file.flush(durable),
    sync: () => file.sync(),
    close: () => {
      file.close();
      unlock();
    },
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
