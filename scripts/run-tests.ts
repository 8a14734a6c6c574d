// The whole check, as CI and `npm test` run it: lint, types, generated code, then every test.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  for (const page of ["packages/web-checkout", "packages/web-dashboard"])
    step(`browser types of ${page} (tsc)`, "pnpm", ["exec", "tsc", "-p", page, "--noEmit"]);
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
const reportPath = path.join(root, "test/artifacts/vitest-report.json");

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numFailedTestSuites: number;
  success: boolean;
  testResults: { status: string; assertionResults: { status: string }[] }[];
}

/** One vitest run; its report, or undefined when it wrote none. The exit status counts too. */
function vitest(extra: string[], outputFile: string): { ok: boolean; report: Report | undefined } {
  rmSync(outputFile, { force: true });
  const result = spawnSync(
    "pnpm",
    [
      "exec",
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${outputFile}`,
      ...extra,
    ],
    { stdio: "inherit", cwd: root },
  );
  const report = existsSync(outputFile)
    ? (JSON.parse(readFileSync(outputFile, "utf8")) as Report)
    : undefined;
  return { ok: result.status === 0, report };
}

// The soak judges whether latency and memory grow over its three minutes, so it runs alone
// after everything else: sharing two cores with other files, its last third would measure
// whatever they did then. (CI's soak failures at 3eef0be and 228aec2 were mostly the soak's own
// driver stalling its event loop on /proc reads, since mended: docs/testing.md.) Asked for files
// by name, one run does it all.
const soak = "test/soak/src/soak.test.ts";
const runs = only
  ? [vitest(args, reportPath)]
  : [
      vitest(["--exclude", soak], reportPath),
      vitest([soak], path.join(root, "test/artifacts/vitest-report-soak.json")),
    ];

// vitest's own exit status misses files that failed to load, so the reports decide too.
let failed = runs.some((run) => !run.ok || run.report === undefined);
const reports = runs.flatMap((run) => (run.report ? [run.report] : []));
const merged: Report = {
  numPassedTests: reports.reduce((n, r) => n + r.numPassedTests, 0),
  numFailedTests: reports.reduce((n, r) => n + r.numFailedTests, 0),
  numPendingTests: reports.reduce((n, r) => n + r.numPendingTests, 0),
  numFailedTestSuites: reports.reduce((n, r) => n + r.numFailedTestSuites, 0),
  success: reports.every((r) => r.success),
  testResults: reports.flatMap((r) => r.testResults),
};
if (runs.length > 1) writeFileSync(reportPath, JSON.stringify(merged));
failed ||= merged.numFailedTests > 0 || merged.numFailedTestSuites > 0 || !merged.success;
// The plain closing line that CI reads; a file that failed to load (failed with no failed
// test in it) counts as one failure. numFailedTestSuites would count describe blocks too.
const brokenFiles = merged.testResults.filter(
  (file) => file.status === "failed" && !file.assertionResults.some((t) => t.status === "failed"),
).length;
const failures = merged.numFailedTests + brokenFiles;
console.log(`${merged.numPassedTests} passed, ${failures} failed, ${merged.numPendingTests} skipped`);
process.exit(failed ? 1 : 0);
