// The audit chain across its files: live segment, archived segments and checkpoint states. Each
// segment begins with a copy of the checkpoint that closed the one before, which ties them together.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AuditEntry,
  type AuditVerification,
  CHECKPOINT,
  hashOfLine,
  verifyAuditFile,
} from "../state/audit-log.js";
import { forEachLine, lineAt } from "./line-file.js";

export const archiveDir = (path: string) => `${path}.archive`;
export const checkpointDir = (path: string) => `${path}.checkpoints`;
const pad = (n: number) => String(n).padStart(12, "0");
export const segmentName = (first: number, last: number) => `${pad(first)}-${pad(last)}.jsonl`;
export const stateName = (seq: number) => `${pad(seq)}.state`;

export interface Segment {
  first: number;
  last: number;
  file: string;
}

/** The archived segments on this host, oldest first. */
export function archivedSegments(path: string): Segment[] {
  const dir = archiveDir(path);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^(\d{12})-(\d{12})\.jsonl$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ first: Number(m[1]), last: Number(m[2]), file: join(dir, m[0]) }))
    .sort((a, b) => a.first - b.first);
}

export const segmentHolding = (segments: readonly Segment[], seq: number) =>
  segments.find((s) => s.first <= seq && seq <= s.last);

/** The hash of entry `seq` in an archived segment, read from the file; undefined when not there. */
export function archivedHashAt(segment: Segment | undefined, seq: number): string | undefined {
  if (!segment || !existsSync(segment.file)) return undefined;
  let found: string | undefined;
  forEachLine(segment.file, (line) => {
    const at = /^\{"seq":(\d+),/.exec(line);
    if (!at || Number(at[1]) !== seq) return true;
    found = hashOfLine(line, seq);
    return false;
  });
  return found;
}

export const archivedLine = (segment: Segment, offset: number) => lineAt(segment.file, offset);

/** A state file's bytes, if they are the ones its checkpoint entry names. */
export function readState(path: string, checkpoint: AuditEntry): Buffer {
  const state = checkpoint.state as { file?: string; sha256?: string } | undefined;
  const file = join(checkpointDir(path), String(state?.file));
  if (!state?.file || !existsSync(file))
    throw new Error(`checkpoint ${checkpoint.seq}: its state file ${file} is missing`);
  const bytes = readFileSync(file);
  if (createHash("sha256").update(bytes).digest("hex") !== state.sha256)
    throw new Error(`checkpoint ${checkpoint.seq}: ${file} is not the state the chain recorded`);
  return bytes;
}

type Visit = (entry: AuditEntry, hash: string, offset: number) => void;

/**
 * Verifies the whole chain offline: every archived segment on this host from the genesis entry on,
 * then the live one, each beginning with a copy of the checkpoint that closed the one before, and
 * the state file of every checkpoint still on disk. `visit` sees each entry once, oldest first.
 */
export function verifyAuditChain(path: string, visit?: Visit): AuditVerification & { checkpoints: number } {
  const files = [...archivedSegments(path).map((s) => s.file), path];
  let [entries, lastHash, checkpoints] = [0, "", 0];
  for (const [i, file] of files.entries()) {
    let problem: string | undefined;
    let first = true;
    const result = verifyAuditFile(file, (entry, hash, offset) => {
      const begins = first;
      first = false;
      if (begins && i === 0 && entry.seq !== 1)
        problem = "the oldest segment here does not begin at the genesis entry";
      if (begins && i > 0) {
        if (entry.seq !== entries || hash !== lastHash)
          problem = `it does not begin where the segment before it ended (entry ${entries})`;
        return; // the copy of a checkpoint already seen
      }
      if (entry.decision === CHECKPOINT) {
        try {
          readState(path, entry);
          checkpoints += 1;
        } catch (error) {
          if (existsSync(join(checkpointDir(path), String((entry.state as { file?: string })?.file))))
            problem = (error as Error).message;
        }
      }
      visit?.(entry, hash, offset);
    });
    if (!result.ok) return { ...result, problem: `${file}: ${result.problem}`, checkpoints };
    if (problem)
      return { ok: false, entries, line: entries + 1, problem: `${file}: ${problem}`, checkpoints };
    [entries, lastHash] = [result.entries, result.lastHash];
  }
  return { ok: true, entries, lastHash, checkpoints };
}
