import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Finds an executable on PATH or in the sbin folders Debian installs daemons into. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/bin"];
  for (const dir of dirs) {
    const candidate = `${dir}/${name}`;
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

let aptUpdated = false;

/**
 * Installs a Debian package when its executable is missing. A fresh machine has only Node, so the
 * runner and the test kit install what they need themselves (as root, which CI and dev boxes are).
 */
export function ensureDebianPackage(executable: string, pkg: string, log: (line: string) => void): string {
  const found = findExecutable(executable);
  if (found) return found;
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = asRoot ? [] : ["sudo", "-n"];
  log(`${executable} not found: installing Debian package ${pkg}`);
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd as string, rest, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  };
  if (!aptUpdated) {
    run(["apt-get", "update", "-qq"]);
    aptUpdated = true;
  }
  run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", pkg]);
  const installed = findExecutable(executable);
  if (!installed) throw new Error(`installed ${pkg} but ${executable} is still not on PATH`);
  return installed;
}
