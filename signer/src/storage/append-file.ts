// An append-only file with group commit: `sync` writes the lines held in one call and resolves
// after one fdatasync shared by every caller waiting; no answer leaves before its sync. A line is
// read back by the byte offset `appendLine` gave it.
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { lineAt } from "./line-file.js";

export interface AppendFile {
  readonly path: string;
  /** Queues `line` (no newline in it); returns the byte offset it starts at in the file. */
  appendLine(line: string): number;
  /** The line starting at byte `offset` (as `appendLine` returned it), written through first if still held. */
  readLine(offset: number): string;
  /** Writes the lines held in memory; with `durable`, waits (blocking) until they are on disk. */
  flush(durable?: boolean): void;
  sync(): Promise<void>;
  close(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A process's start time (clock ticks since boot, from /proc), so a lock left by a signer that
 * died is not mistaken for a live one when the kernel hands its pid to another process.
 * Undefined where /proc is not there.
 */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; starttime is the 22nd field overall.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

const lockContent = () => `${process.pid} ${startTime(process.pid) ?? ""}`.trim();

/**
 * One writer per file: a second writer would fork the hash chain and lose replay state.
 * The lock names the holder's pid; a lock left by a dead process is taken over.
 */
export function acquireLock(lockPath: string): void {
  try {
    writeFileSync(lockPath, lockContent(), { flag: "wx", mode: 0o600 });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const [pidText, started] = readFileSync(lockPath, "utf8").trim().split(" ");
  const holder = Number(pidText);
  const sameProcess = started === undefined || startTime(holder) === started;
  if (Number.isInteger(holder) && holder > 0 && alive(holder) && sameProcess) {
    throw new Error(`${lockPath} is held by process ${holder}: another signer uses these files`);
  }
  rmSync(lockPath, { force: true });
  writeFileSync(lockPath, lockContent(), { flag: "wx", mode: 0o600 });
}

/** `locked`: the caller already holds `<path>.lock` (and keeps it after `close`), as the audit log does across rotations. */
export function openAppendFile(path: string, { locked = false } = {}): AppendFile {
  mkdirSync(dirname(path), { recursive: true });
  if (!locked) acquireLock(`${path}.lock`);
  return new GroupCommitFile(path, locked, openSync(path, "a", 0o600));
}

class GroupCommitFile implements AppendFile {
  // Bytes in the file once every held line is written, and bytes written to it so far.
  #size: number;
  #written: number;
  #pending: string[] = [];
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #closed = false;
  // A failed write leaves the file's chain with a gap: nothing may be appended after it.
  #failed: Error | undefined;
  // A close (the audit log's rotation) waits for the fdatasync in flight before it frees the fd.
  #inflight = 0;
  #closeWhenIdle = false;

  constructor(
    readonly path: string,
    private readonly locked: boolean,
    private readonly fd: number,
  ) {
    this.#size = fstatSync(fd).size;
    this.#written = this.#size;
  }

  appendLine(line: string): number {
    if (this.#closed) throw new Error(`${this.path} is closed`);
    if (this.#failed) throw this.#failed;
    const offset = this.#size;
    this.#pending.push(`${line}\n`);
    this.#size += Buffer.byteLength(line) + 1;
    return offset;
  }

  readLine(offset: number): string {
    if (offset < 0 || offset >= this.#size) throw new RangeError(`${this.path}: no line at byte ${offset}`);
    if (offset >= this.#written) this.flush();
    return lineAt(this.path, offset);
  }

  flush(durable = false): void {
    if (this.#failed) throw this.#failed;
    const text = this.#pending.join("");
    this.#pending = [];
    try {
      if (text) {
        // A short write (a full disk) would leave a torn line that later lines chain on to.
        const count = writeSync(this.fd, text);
        if (this.#written + count !== this.#size)
          throw new Error(`${this.path}: wrote ${count} of ${this.#size - this.#written} bytes`);
        this.#written = this.#size;
      }
      if (durable) fdatasyncSync(this.fd);
    } catch (error) {
      this.#failed = error as Error;
      throw error;
    }
  }

  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    // A sync is in flight and may have started before our lines: wait for the next one.
    if (!this.#queued) {
      this.#queued = this.#running
        .catch(() => undefined)
        .then(() => {
          this.#queued = undefined;
          return this.#start();
        });
    }
    return this.#queued;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (!this.#failed) this.flush(true);
    } finally {
      if (this.#inflight === 0) closeSync(this.fd);
      else this.#closeWhenIdle = true;
      if (!this.locked) rmSync(`${this.path}.lock`, { force: true });
    }
  }

  #start(): Promise<void> {
    this.#running = this.#syncNow().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #syncNow(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // A closed file was made durable by its close.
      if (this.#closed) return resolve();
      try {
        this.flush();
      } catch (error) {
        reject(error);
        return;
      }
      this.#inflight += 1;
      fdatasync(this.fd, (error) => {
        this.#inflight -= 1;
        if (this.#closeWhenIdle && this.#inflight === 0) closeSync(this.fd);
        if (error) reject(error);
        else resolve();
      });
    });
  }
}
