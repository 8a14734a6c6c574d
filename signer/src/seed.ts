// Loads the seed the signer derives every key from. Never logged, never returned. The
// passphrase of a sealed seed comes from a mounted file or an unseal command (its stdout),
// or in development from the environment.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { ConfigError, type PassphraseSource, type SeedSource } from "./config.js";
import { mnemonicToSeed, unsealMnemonic } from "./sealed-seed.js";

/** A file or command output ends with one newline that is not part of the passphrase. */
function withoutFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, "");
}

function problem(variable: string, message: string): ConfigError {
  return new ConfigError([{ variable, problem: message }]);
}

export function readPassphrase(source: PassphraseSource): string {
  let passphrase: string;
  switch (source.kind) {
    case "value":
      return source.value;
    case "file": {
      try {
        passphrase = withoutFinalNewline(readFileSync(source.path, "utf8"));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "error";
        throw problem("SIGNER_SEED_PASSPHRASE_FILE", `cannot read ${source.path} (${code})`);
      }
      if (!passphrase) throw problem("SIGNER_SEED_PASSPHRASE_FILE", `${source.path} is empty`);
      return passphrase;
    }
    case "command": {
      const [file = "", ...args] = source.argv;
      try {
        // No shell: the argv is run as given. stderr goes to ours, so the operator sees why it failed.
        passphrase = withoutFinalNewline(
          execFileSync(file, args, {
            encoding: "utf8",
            timeout: source.timeoutMs,
            killSignal: "SIGKILL",
            maxBuffer: 64 * 1024,
            stdio: ["ignore", "pipe", "inherit"],
          }),
        );
      } catch (error) {
        const e = error as NodeJS.ErrnoException & { status?: number | null; signal?: string | null };
        const why =
          e.code === "ETIMEDOUT" || e.signal
            ? `timed out or was killed (${e.signal ?? e.code})`
            : e.status != null
              ? `exited with ${e.status}`
              : (e.code ?? "failed");
        throw problem("SIGNER_SEED_UNSEAL_COMMAND", `${file} ${why}`);
      }
      if (!passphrase) throw problem("SIGNER_SEED_UNSEAL_COMMAND", `${file} printed no passphrase`);
      return passphrase;
    }
  }
}

export function loadSeed(source: SeedSource): Uint8Array {
  const mnemonic =
    source.kind === "sealed"
      ? unsealMnemonic(readFileSync(source.file, "utf8"), readPassphrase(source.passphrase))
      : source.mnemonic;
  return mnemonicToSeed(mnemonic);
}
