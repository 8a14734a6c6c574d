// Loads the seed the signer derives every key from. Never logged, never returned.
import { readFileSync } from "node:fs";
import type { SeedSource } from "./config.js";
import { mnemonicToSeed, unsealMnemonic } from "./keys/sealed-seed.js";

export function loadSeed(source: SeedSource): Uint8Array {
  const mnemonic =
    source.kind === "sealed"
      ? unsealMnemonic(readFileSync(source.file, "utf8"), source.passphrase)
      : source.mnemonic;
  return mnemonicToSeed(mnemonic);
}
