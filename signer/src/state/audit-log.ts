// The audit log: one JSON line per decision, each carrying the hash of the line before,
// so removing, reordering or editing a line breaks the chain that `verify-audit` checks.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { type AppendFile, openAppendFile } from "./append-file.js";

export const GENESIS_HASH = "0".repeat(64);

export interface AuditDecision {
  decision: "signed" | "refused";
  intent: Record<string, unknown>;
  /** SHA-256 of the unsigned transaction bytes. */
  transaction?: string;
  signers?: string[];
  code?: string;
  reason?: string;
}

export interface AuditLog {
  append(decision: AuditDecision): void;
  sync(): Promise<void>;
  close(): void;
}

function hashLine(prev: string, body: string): string {
  return createHash("sha256").update(prev).update("\n").update(body).digest("hex");
}

function lastLine(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.length > 0);
  return lines.at(-1);
}

export function openAuditLog(path: string, now: () => Date = () => new Date()): AuditLog {
  const last = lastLine(path);
  let seq = 0;
  let prev = GENESIS_HASH;
  if (last) {
    const entry = JSON.parse(last) as { seq: number; hash: string };
    seq = entry.seq;
    prev = entry.hash;
  }
  const file: AppendFile = openAppendFile(path);
  return {
    append(decision) {
      seq += 1;
      const body = JSON.stringify({ seq, at: now().toISOString(), prev, ...decision });
      const hash = hashLine(prev, body);
      file.appendLine(`${body.slice(0, -1)},"hash":"${hash}"}`);
      prev = hash;
    },
    sync: () => file.sync(),
    close: () => file.close(),
  };
}

export type AuditVerification =
  | { ok: true; entries: number; lastHash: string }
  | { ok: false; entries: number; line: number; problem: string };

/** Checks the whole chain: sequence numbers, links and hashes. */
export function verifyAuditLog(contents: string): AuditVerification {
  const lines = contents.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let prev = GENESIS_HASH;
  for (const [i, line] of lines.entries()) {
    const fail = (problem: string): AuditVerification => ({ ok: false, entries: i, line: i + 1, problem });
    const match = /^(\{.*),"hash":"([0-9a-f]{64})"\}$/.exec(line);
    if (!match) return fail("line is not an audit entry");
    const body = `${match[1]}}`;
    let entry: { seq?: unknown; prev?: unknown };
    try {
      entry = JSON.parse(body);
    } catch {
      return fail("line is not JSON");
    }
    if (entry.seq !== i + 1) return fail(`sequence number ${String(entry.seq)}, expected ${i + 1}`);
    if (entry.prev !== prev) return fail("link to the previous line is broken");
    const hash = hashLine(prev, body);
    if (hash !== match[2]) return fail("hash does not match the line");
    prev = hash;
  }
  return { ok: true, entries: lines.length, lastHash: prev };
}
