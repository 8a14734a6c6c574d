// The repository's files as git sees them (tracked, and new ones not ignored), for checks that
// read every source; deleted files that git still lists are left out.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./literal-lists.js";

export function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => file.length > 0 && existsSync(path.join(ROOT, file)));
}

/** TypeScript sources written by hand: generated code (`gen/`) and dependencies left out. */
export function handWrittenTypeScript(): string[] {
  return trackedFiles().filter(
    (file) => file.endsWith(".ts") && !file.includes("node_modules/") && !file.includes("/gen/"),
  );
}
