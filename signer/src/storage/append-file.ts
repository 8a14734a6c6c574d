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
  const lockPath = `${path}.lock`;
  if (!locked) acquireLock(lockPath);
  const fd = openSync(path, "a", 0o600);
  // Bytes in the file once every held line is written, and bytes written to it so far.
  let size = fstatSync(fd).size;
  let written = size;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let closed = false;
  let pending: string[] = [];
  // A failed write leaves the file's chain with a gap: nothing may be appended after it.
  let failed: Error | undefined;

  function flush(durable = false): void {
    if (failed) throw failed;
    const text = pending.join("");
    pending = [];
    try {
      if (text) {
        // A short write (a full disk) would leave a torn line that later lines chain on to.
        const count = writeSync(fd, text);
        if (written + count !== size) throw new Error(`${path}: wrote ${count} of ${size - written} bytes`);
        written = size;
      }
      if (durable) fdatasyncSync(fd);
    } catch (error) {
      failed = error as Error;
      throw error;
    }
  }

  // A close (the audit log's rotation) waits for the fdatasync in flight before it frees the fd.
  let inflight = 0;
  let closeWhenIdle = false;
  const syncNow = () =>
    new Promise<void>((resolve, reject) => {
      // A closed file was made durable by its close.
      if (closed) return resolve();
      try {
        flush();
      } catch (error) {
        reject(error);
        return;
      }
      inflight += 1;
      fdatasync(fd, (error) => {
        inflight -= 1;
        if (closeWhenIdle && inflight === 0) closeSync(fd);
        if (error) reject(error);
        else resolve();
      });
    });

  function start(): Promise<void> {
    running = syncNow().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    path,
    appendLine(line) {
      if (closed) throw new Error(`${path} is closed`);
      if (failed) throw failed;
      const offset = size;
      pending.push(`${line}\n`);
      size += Buffer.byteLength(line) + 1;
      return offset;
    },
    readLine(offset) {
      if (offset < 0 || offset >= size) throw new RangeError(`${path}: no line at byte ${offset}`);
      if (offset >= written) flush();
      return lineAt(path, offset);
    },
    flush,
    sync() {
      if (!running) return start();
      // A sync is in flight and may have started before our lines: wait for the next one.
      if (!queued) {
        queued = running
          .catch(() => undefined)
          .then(() => {
            queued = undefined;
            return start();
          });
      }
      return queued;
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        if (!failed) flush(true);
      } finally {
        if (inflight === 0) closeSync(fd);
        else closeWhenIdle = true;
        if (!locked) rmSync(lockPath, { force: true });
      }
    },
  };
}
