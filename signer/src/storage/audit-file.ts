// The audit log's files: opened under their lock, verified and replayed from the newest checkpoint,
// appended to, and rotated into the archive at each checkpoint (docs/signer.md, "Checkpoints").
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
    const log = new AuditFiles(path, options.now ?? (() => new Date()), () =>
      rmSync(lockPath, { force: true }),
    );
    log.open(options);
    return log;
  } catch (error) {
    rmSync(lockPath, { force: true });
    throw error;
  }
}

function chainIdOf(marker: string): string | undefined {
  return existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as { id?: string }).id : undefined;
}

/** The live segment under its lock, the archived segments beside it, and the checkpoints' states. */
class AuditFiles implements AuditFile {
  readonly #marker: string;
  /** The genesis marker's chain id, read once at open. */
  #chainId: string | undefined;
  #head: AuditHead = { seq: 0, hash: GENESIS_HASH };
  #offsets = new EntryOffsets(1);
  #since: number;
  #file: AppendFile | undefined;
  #archived: Segment[] = [];

  constructor(
    readonly path: string,
    private readonly now: () => Date,
    private readonly unlock: () => void,
  ) {
    this.#marker = genesisMarkerPath(path);
    this.#since = now().getTime();
  }

  /** Verifies and replays the live segment (or starts a chain), then opens it for appending. */
  open({ replay, restore }: Pick<OpenAuditLogOptions, "replay" | "restore">): void {
    const logExists = existsSync(this.path) && statSync(this.path).size > 0;
    if (!logExists && existsSync(this.#marker))
      throw new AuditChainError(
        `${this.path} is missing or empty beside ${this.#marker}: restore it; the signer will not start afresh`,
      );
    if (logExists && !existsSync(this.#marker))
      throw new AuditChainError(
        `${this.#marker} is missing beside ${this.path}: the log's origin cannot be checked`,
      );
    this.#chainId = chainIdOf(this.#marker);
    if (logExists) this.#verify(replay, restore);
    this.#file = openAppendFile(this.path, { locked: true });
    this.#archived = archivedSegments(this.path);
    if (!logExists) this.#genesis();
  }

  #verify(replay: OpenAuditLogOptions["replay"], restore: OpenAuditLogOptions["restore"]): void {
    const verified = verifyAuditFile(this.path, (entry, hash, offset) => {
      if (this.#offsets.size === 0) this.#offsets = new EntryOffsets(entry.seq);
      this.#offsets.push(offset);
      if (entry.decision !== CHECKPOINT || this.#offsets.size !== 1)
        return replay?.(entry, { seq: entry.seq, offset, hash });
      if (entry.chain !== this.#chainId)
        throw new AuditChainError(
          `${this.path} begins with a checkpoint of another chain than ${this.#marker}`,
        );
      this.#since = Date.parse(String(entry.at));
      restore?.(readState(this.path, entry), entry);
    });
    if (!verified.ok)
      throw new AuditChainError(
        `${this.path} line ${verified.line}: ${verified.problem}; the signer will not start`,
      );
    this.#head = { seq: verified.entries, hash: verified.lastHash };
    this.#offsets = this.#offsets.size === 0 ? new EntryOffsets(1) : this.#offsets;
  }

  /** A new chain starts with a genesis entry, so a log that ever existed is never empty. */
  #genesis(): void {
    const id = randomUUID();
    this.#chainId = id;
    // The genesis line is on disk before its marker: a marker never stands beside an empty log.
    this.append({ decision: "genesis", intent: {}, chain: id });
    this.flush(true);
    writeFileSync(this.#marker, `${JSON.stringify({ id, created: this.now().toISOString() })}\n`, {
      mode: 0o600,
    });
  }

  get #live(): AppendFile {
    if (!this.#file) throw new Error(`${this.path} is not open`);
    return this.#file;
  }

  #appendLine(decision: AuditDecision) {
    const entry = entryLine(this.#head, this.now(), decision);
    const offset = this.#live.appendLine(entry.line);
    this.#offsets.push(offset);
    this.#head = entry.head;
    return { ...this.#head, offset, line: entry.line };
  }

  append(decision: AuditDecision): AuditHead & AuditPlace {
    const { line: _line, ...placed } = this.#appendLine(decision);
    return placed;
  }

  read(place: AuditPlace) {
    if (place.seq >= this.#offsets.first) return entryAt(this.#live.readLine(place.offset), place, this.path);
    const segment = segmentHolding(this.#archived, place.seq);
    if (!segment || !existsSync(segment.file)) throw new ArchivedEntryError(place.seq, archiveDir(this.path));
    return entryAt(archivedLine(segment, place.offset), place, segment.file);
  }

  head(): AuditHead {
    return this.#head;
  }

  hashAt(seq: number): string | undefined {
    if (seq === this.#head.seq) return this.#head.hash;
    if (seq < 1 || seq > this.#head.seq) return undefined;
    const offset = this.#offsets.at(seq);
    if (offset !== undefined) return hashOfLine(this.#live.readLine(offset), seq);
    return archivedHashAt(segmentHolding(this.#archived, seq), seq);
  }

  sinceCheckpoint() {
    return { entries: this.#head.seq - this.#offsets.first, since: this.#since };
  }

  checkpoint(state: Buffer, fields: Record<string, unknown>): AuditHead {
    this.#live.flush(true);
    const written = this.#writeState(this.#head.seq + 1, state);
    const chain = this.#chainId;
    const { line } = this.#appendLine({ decision: CHECKPOINT, intent: {}, chain, state: written, ...fields });
    this.#live.flush(true);
    this.#rotate(line);
    this.#since = this.now().getTime();
    return this.#head;
  }

  #writeState(seq: number, state: Buffer) {
    const dir = checkpointDir(this.path);
    mkdirSync(dir, { recursive: true });
    const name = stateName(seq);
    writeDurably(join(dir, name), state);
    // The newest state files are enough to start; older ones are verified offline only if kept.
    const older = readdirSync(dir)
      .filter((f) => f.endsWith(".state"))
      .sort();
    for (const f of older.slice(0, -STATE_FILES_KEPT)) rmSync(join(dir, f));
    return { file: name, sha256: createHash("sha256").update(state).digest("hex"), bytes: state.length };
  }

  /** Rotates the live segment, which ends with the checkpoint `line`, into the archive. */
  #rotate(line: string): void {
    const { first } = this.#offsets;
    writeDurably(nextPath(this.path), `${line}\n`);
    mkdirSync(archiveDir(this.path), { recursive: true });
    const segment = join(archiveDir(this.path), segmentName(first, this.#head.seq));
    this.#live.close();
    renameSync(this.path, segment);
    fsyncPath(archiveDir(this.path));
    renameSync(nextPath(this.path), this.path);
    fsyncPath(dirname(this.path));
    this.#file = openAppendFile(this.path, { locked: true });
    this.#archived = [...this.#archived, { first, last: this.#head.seq, file: segment }];
    this.#offsets = new EntryOffsets(this.#head.seq);
    this.#offsets.push(0);
  }

  flush(durable?: boolean): void {
    this.#live.flush(durable);
  }

  sync(): Promise<void> {
    return this.#live.sync();
  }

  close(): void {
    this.#file?.close();
    this.unlock();
  }
}
