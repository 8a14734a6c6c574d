// What a production image holds of a service: its bundle, its package.json, the files the bundle
// reads at run time and the packages left external with their dependencies, laid out as in the
// repository so the rewritten import.meta addresses and Node's resolution find them. Everything
// else the bundle already contains, so the image installs no other production dependency.
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { BUILD_TARGETS, type BuildTarget } from "./build-services.js";

export class RuntimeFolderError extends Error {
  override name = "RuntimeFolderError";
}

/** Tests, type declarations and source maps of dependencies are never read by a running service. */
const notRunTime = (file: string) => !/\.(test|browser\.test)\.ts$|\.d\.ts$|\.d\.mts$/.test(file);

export function targetOf(root: string, service: string): BuildTarget {
  const target = BUILD_TARGETS.find(
    (t) =>
      t.dir === service ||
      JSON.parse(readFileSync(path.join(root, t.dir, "package.json"), "utf8")).name === service,
  );
  if (!target) throw new RuntimeFolderError(`no build target for ${service}`);
  return target;
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * The external packages and every package they depend on, each found as Node finds it from its
 * dependent's real folder; optional ones that are not installed (other platforms' binaries) are
 * skipped, as Node skips them.
 */
function externalClosure(packageDir: string, externals: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (name: string, from: string, optional: boolean) => {
    let manifestFile: string;
    try {
      manifestFile = realpathSync(
        createRequire(path.join(from, "package.json")).resolve(`${name}/package.json`),
      );
    } catch (err) {
      if (optional) return;
      throw new RuntimeFolderError(`${name} is not installed beside ${from}`, { cause: err });
    }
    const dir = path.dirname(manifestFile);
    const seen = found.get(name);
    if (seen === dir) return;
    if (seen) throw new RuntimeFolderError(`two versions of ${name} are needed: ${seen} and ${dir}`);
    found.set(name, dir);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest;
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const name of externals) visit(name, packageDir, false);
  return found;
}

/** Copies a file or folder, following symlinks, leaving out tests and nested node_modules. */
function copyReal(from: string, to: string): void {
  const real = realpathSync(from);
  mkdirSync(path.dirname(to), { recursive: true });
  cpSync(real, to, {
    recursive: true,
    dereference: true,
    filter: (file) => notRunTime(file) && !path.relative(real, file).split(path.sep).includes("node_modules"),
  });
}

/** Writes the service's run-time folder to `out` (the image's /app); the bundle must be built. */
export function writeRuntimeFolder(root: string, service: string, out: string): void {
  const target = targetOf(root, service);
  const packageDir = path.join(root, target.dir);
  for (const out of Object.keys(target.entries)) {
    if (!existsSync(path.join(packageDir, "dist", `${out}.js`)))
      throw new RuntimeFolderError(`${target.dir}/dist/${out}.js is not built (scripts/build.ts)`);
  }
  mkdirSync(out, { recursive: true });
  cpSync(path.join(packageDir, "package.json"), path.join(out, "package.json"));
  cpSync(path.join(packageDir, "dist"), path.join(out, "dist"), {
    recursive: true,
    filter: (file) => !file.endsWith(".build-manifest.json"),
  });
  for (const file of target.runtime ?? []) {
    const from = path.join(packageDir, file);
    if (!existsSync(from)) throw new RuntimeFolderError(`${target.dir}/${file} does not exist`);
    copyReal(from, path.join(out, file));
  }
  for (const [name, dir] of externalClosure(packageDir, target.external ?? [])) {
    copyReal(dir, path.join(out, "node_modules", name));
  }
  if (!statSync(path.join(out, "dist")).isDirectory()) throw new RuntimeFolderError("no dist/ copied");
}
