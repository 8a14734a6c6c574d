// The whole check, as CI and `npm test` run it: lint, types, generated code, then every test.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);

function step(name: string, cmd: string, cmdArgs: string[]): void {
  const started = Date.now();
  process.stderr.write(`\n== ${name}\n`);
  const result = spawnSync(cmd, cmdArgs, { stdio: "inherit", cwd: root });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    process.stderr.write(`== ${name} failed after ${seconds}s\n`);
    process.exit(result.status ?? 1);
  }
  process.stderr.write(`== ${name} passed in ${seconds}s\n`);
}

const only = args.length > 0;
if (!only) {
  step("lint and format (biome)", "pnpm", ["exec", "biome", "check", "."]);
  step("types (tsc)", "pnpm", ["exec", "tsc", "-p", "tsconfig.json", "--noEmit"]);
  // The browser code again, with the DOM and without Node's types (docs/front-end.md).
  step("browser types (tsc)", "pnpm", ["exec", "tsc", "-p", "services/api/tsconfig.client.json", "--noEmit"]);
  const protoPackage = path.join(root, "packages/signer-proto/package.json");
  if (existsSync(protoPackage) && JSON.parse(readFileSync(protoPackage, "utf8")).scripts?.["gen:check"]) {
    step("generated protobuf code is current", "pnpm", [
      "--filter",
      "@gateway/signer-proto",
      "run",
      "gen:check",
    ]);
  }
}

mkdirSync(path.join(root, "test/artifacts"), { recursive: true });
const report = path.join(root, "test/artifacts/vitest-report.json");
const result = spawnSync(
  "pnpm",
  ["exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...args],
  { stdio: "inherit", cwd: root },
);
// vitest's own exit status misses files that failed to load, so the report decides too.
let failed = result.status !== 0;
if (existsSync(report)) {
  const summary = JSON.parse(readFileSync(report, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numFailedTestSuites: number;
    success: boolean;
    testResults: { status: string; assertionResults: { status: string }[] }[];
  };
  failed ||= summary.numFailedTests > 0 || summary.numFailedTestSuites > 0 || !summary.success;
  // The plain closing line that CI reads; a file that failed to load (failed with no failed
  // test in it) counts as one failure. numFailedTestSuites would count describe blocks too.
  const brokenFiles = summary.testResults.filter(
    (file) => file.status === "failed" && !file.assertionResults.some((t) => t.status === "failed"),
  ).length;
  const failures = summary.numFailedTests + brokenFiles;
  console.log(`${summary.numPassedTests} passed, ${failures} failed, ${summary.numPendingTests} skipped`);
} else {
  failed = true;
}
process.exit(failed ? 1 : 0);
