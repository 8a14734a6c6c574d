import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verifyAuditText } from "../../test/fixtures.js";
import { openAppendFile } from "../storage/append-file.js";
import { openAuditLog } from "../storage/audit-file.js";

/** A new folder under the system's temporary one, removed after the file's tests. */
const made: string[] = [];
const dir = (prefix = "signer-state-") => {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  made.push(folder);
  return folder;
};
afterAll(() => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

describe("audit log file", () => {
  it("continues the chain across a reopen", async () => {
    const path = join(dir(), "audit.jsonl");
    const first = openAuditLog(path);
    first.append({ decision: "refused", intent: { intentId: "a" }, code: "WRONG_AMOUNT", reason: "x" });
    await first.sync();
    first.close();
    const second = openAuditLog(path);
    second.append({ decision: "signed", intent: { intentId: "b" }, signers: ["s"] });
    await second.sync();
    second.close();
    const result = verifyAuditText(readFileSync(path, "utf8"));
    // The genesis entry, then the two decisions.
    expect(result).toMatchObject({ ok: true, entries: 3 });
  });

  it("refuses to open a chain with an edited line, naming the line", () => {
    const path = join(dir(), "audit.jsonl");
    const log = openAuditLog(path);
    log.append({ decision: "refused", intent: { intentId: "a" }, code: "WRONG_AMOUNT", reason: "x" });
    log.close();
    writeFileSync(path, readFileSync(path, "utf8").replace('"intentId":"a"', '"intentId":"b"'));
    expect(() => openAuditLog(path)).toThrow(/line 2: hash does not match/);
  });

  it("refuses to start afresh when the log is gone but its genesis marker is there", () => {
    const path = join(dir(), "audit.jsonl");
    openAuditLog(path).close();
    rmSync(path);
    expect(() => openAuditLog(path)).toThrow(/missing or empty beside/);
    writeFileSync(path, "");
    expect(() => openAuditLog(path)).toThrow(/missing or empty beside/);
  });

  it("replays every verified entry at open", () => {
    const path = join(dir(), "audit.jsonl");
    const log = openAuditLog(path);
    log.append({ decision: "refused", intent: { intentId: "a" }, code: "X", reason: "y" });
    log.close();
    const seen: string[] = [];
    openAuditLog(path, { replay: (entry) => seen.push(entry.decision) }).close();
    expect(seen).toEqual(["genesis", "refused"]);
  });

  it("refuses a second writer while the first holds the file", () => {
    const path = join(dir(), "audit.jsonl");
    const first = openAuditLog(path);
    expect(() => openAuditLog(path)).toThrow(/held by process/);
    first.close();
    openAuditLog(path).close();
  });

  it("shares one fdatasync among concurrent waiters and keeps order", async () => {
    const path = join(dir(), "audit.jsonl");
    const log = openAuditLog(path);
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      log.append({ decision: "refused", intent: { intentId: `i${i}` }, code: "X", reason: "y" });
      waits.push(log.sync());
    }
    await Promise.all(waits);
    log.close();
    const lines = readFileSync(path, "utf8").trim().split("\n").slice(1);
    expect(lines.map((l) => JSON.parse(l).intent.intentId)).toEqual(
      Array.from({ length: 50 }, (_, i) => `i${i}`),
    );
    expect(verifyAuditText(readFileSync(path, "utf8")).ok).toBe(true);
  });

  it("reports where a chain breaks", () => {
    expect(verifyAuditText('{"seq":1,"prev":"00","hash":"zz"}\n')).toMatchObject({ ok: false, line: 1 });
  });
});

describe("a signer killed before its first sync", () => {
  it("leaves a log it can start from: the genesis line is on disk before its marker", () => {
    const file = join(dir("killed-at-start-"), "audit.jsonl");
    const auditLog = new URL("../storage/audit-file.ts", import.meta.url).pathname;
    // A decision appended and never synced dies with the process; the chain must not.
    const script = `import { openAuditLog } from ${JSON.stringify(auditLog)};
      const log = openAuditLog(${JSON.stringify(file)});
      log.append({ decision: "refused", intent: { intentId: "never-synced" } });
      process.kill(process.pid, "SIGKILL");`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.signal).toBe("SIGKILL");
    const log = openAuditLog(file);
    expect(log.head().seq).toBe(1);
    log.close();
    expect(readFileSync(file, "utf8")).toContain('"decision":"genesis"');
    expect(readFileSync(file, "utf8")).not.toContain("never-synced");
  });
});

describe("lock left by a dead signer", () => {
  it("is taken over when its pid now belongs to another process (pid reuse)", () => {
    const file = join(dir("lock-reuse-"), "audit.jsonl");
    // pid 1 is alive, but its start time is not the one the dead signer recorded.
    writeFileSync(`${file}.lock`, "1 999999999999");
    const writer = openAppendFile(file);
    writer.close();
  });
});
