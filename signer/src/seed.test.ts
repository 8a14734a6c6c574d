// The passphrase of a sealed seed, from each source the signer accepts.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config.js";
import { mnemonicToSeed, sealMnemonic } from "./sealed-seed.js";
import { loadSeed, readPassphrase } from "./seed.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const PASSPHRASE = "correct horse battery staple";
const dir = mkdtempSync(join(tmpdir(), "signer-seed-"));
const sealed = join(dir, "seed.sealed");
writeFileSync(sealed, sealMnemonic(MNEMONIC, PASSPHRASE, { N: 2 ** 14, r: 8, p: 1 }));

const variableOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => i.variable);
    throw error;
  }
  return [];
};

describe("seed passphrase", () => {
  it("reads a mounted file, without its final newline", () => {
    const file = join(dir, "passphrase");
    writeFileSync(file, `${PASSPHRASE}\n`, { mode: 0o400 });
    const seed = loadSeed({ kind: "sealed", file: sealed, passphrase: { kind: "file", path: file } });
    expect(Buffer.from(seed)).toEqual(Buffer.from(mnemonicToSeed(MNEMONIC)));
  });

  it("runs an unseal command without a shell and takes its stdout", () => {
    const script = join(dir, "unseal.sh");
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$1"\n`);
    chmodSync(script, 0o700);
    // The argument holds shell syntax; without a shell it arrives as one literal word.
    expect(readPassphrase({ kind: "command", argv: [script, "a b; echo $HOME"], timeoutMs: 5000 })).toBe(
      "a b; echo $HOME",
    );
    const seed = loadSeed({
      kind: "sealed",
      file: sealed,
      passphrase: { kind: "command", argv: [script, PASSPHRASE], timeoutMs: 5000 },
    });
    expect(seed).toHaveLength(64);
  });

  it("names the variable when the file or command fails", () => {
    expect(variableOf(() => readPassphrase({ kind: "file", path: join(dir, "missing") }))).toEqual([
      "SIGNER_SEED_PASSPHRASE_FILE",
    ]);
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n");
    expect(variableOf(() => readPassphrase({ kind: "file", path: empty }))).toEqual([
      "SIGNER_SEED_PASSPHRASE_FILE",
    ]);
    expect(variableOf(() => readPassphrase({ kind: "command", argv: ["false"], timeoutMs: 5000 }))).toEqual([
      "SIGNER_SEED_UNSEAL_COMMAND",
    ]);
    const started = Date.now();
    expect(
      variableOf(() => readPassphrase({ kind: "command", argv: ["sleep", "30"], timeoutMs: 300 })),
    ).toEqual(["SIGNER_SEED_UNSEAL_COMMAND"]);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
