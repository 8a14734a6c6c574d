// The decision core (keys, intents, policy, ledger, audit, and the core that ties them) must stay
// small enough for a security team to read in a sitting. Server wiring, configuration, seed
// sealing, file storage and development tooling live outside it. Counted: lines of code, that
// is, lines that are neither blank nor only a comment.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const SRC = import.meta.dirname;
const CORE = [
  "chains",
  "keys",
  "intents",
  "policy",
  "state",
  "vocabulary.ts",
  "signer-core.ts",
  "access.ts",
  "refusal.ts",
];
// At most 1,700 lines, what a security team reads in a sitting (docs/signer.md, "Size"). A change
// that needs more must take as much out first.
const LIMIT = 1_700;

function files(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

export function codeLines(text: string): number {
  let inBlock = false;
  let count = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (line === "" || line.startsWith("//")) continue;
    if (line.startsWith("/*")) {
      if (!line.includes("*/")) inBlock = true;
      continue;
    }
    count += 1;
  }
  return count;
}

it(`keeps the decision core within ${LIMIT} lines of code`, () => {
  const sources = CORE.flatMap((entry) => files(join(SRC, entry))).filter(
    (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
  );
  const total = sources.reduce((sum, f) => sum + codeLines(readFileSync(f, "utf8")), 0);
  console.log(`signer decision core: ${total} lines of code in ${sources.length} files`);
  expect(total).toBeLessThanOrEqual(LIMIT);
});
