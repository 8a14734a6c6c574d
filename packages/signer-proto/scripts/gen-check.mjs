// Fails when the committed generated code under src/gen differs from what buf generates
// now from ../../proto. CI runs it so a .proto change cannot land without its code.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), "signer-proto-gen-"));

function listFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...listFiles(path));
    else files.push(path);
  }
  return files;
}

try {
  execFileSync("buf", ["generate", "--output", out], { cwd: root, stdio: "inherit" });
  const committedDir = join(root, "src/gen");
  const freshDir = join(out, "src/gen");
  const committed = listFiles(committedDir)
    .map((f) => relative(committedDir, f))
    .sort();
  const fresh = listFiles(freshDir)
    .map((f) => relative(freshDir, f))
    .sort();
  const problems = [];
  for (const file of new Set([...committed, ...fresh])) {
    if (!committed.includes(file)) problems.push(`missing from src/gen: ${file}`);
    else if (!fresh.includes(file)) problems.push(`stale file in src/gen: ${file}`);
    else if (!readFileSync(join(committedDir, file)).equals(readFileSync(join(freshDir, file))))
      problems.push(`differs: src/gen/${file}`);
  }
  if (problems.length > 0) {
    console.error(
      `generated code is not current (run: pnpm --filter @gateway/signer-proto gen)\n${problems.join("\n")}`,
    );
    process.exitCode = 1;
  } else {
    console.log("generated code is current");
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
