// The build step: each process `npm start` runs, and each production image, bundled by esbuild
// into `<package>/dist/main.js` (docs/operations.md#compiled-services says why this shape).
// A bundle is rebuilt only when one of its inputs changed since the last build.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type BuildOptions, build, stop as stopEsbuild } from "esbuild";
import { importMetaPlugin } from "./import-meta-plugin.js";

export interface BuildTarget {
  /** The package folder, relative to the repository root. */
  dir: string;
  /** Output name (without .js) → entry point, relative to the package folder. */
  entries: Record<string, string>;
  /**
   * Left as imports and loaded from the package's node_modules at run time: native addons and
   * packages that run their own binary. Each must be a direct dependency of the package.
   */
  external?: string[];
  /**
   * Files the bundle reads at run time, relative to the package folder (a workspace package's
   * through `node_modules/<name>/`): the production image carries these, the bundle, the
   * externals with their own dependencies, and nothing else (scripts/build/runtime-folder.ts).
   */
  runtime?: string[];
}

const main = { main: "src/main.ts" };

/** Every process of the local cluster and every production image. */
export const BUILD_TARGETS: BuildTarget[] = [
  {
    dir: "services/api",
    // The API's image also migrates the schema (deploy/compose.yaml, the Kubernetes Job).
    entries: { ...main, migrate: "../../packages/db/src/migrate-cli.ts" },
    external: ["@node-rs/argon2", "esbuild"],
    // The pages' TypeScript and styles, bundled at start-up with the contracts they import, and
    // the migrations `dist/migrate.js` applies.
    runtime: [
      "node_modules/@gateway/web-checkout/src/client",
      "node_modules/@gateway/web-checkout/src/i18n",
      "node_modules/@gateway/web-checkout/src/assets",
      "node_modules/@gateway/web-dashboard/src/client",
      "node_modules/@gateway/web-dashboard/src/assets",
      // The dashboard's passkeys: WebAuthn's browser half, bundled into the page with it.
      "node_modules/@gateway/web-dashboard/node_modules/@simplewebauthn/browser",
      "node_modules/@gateway/web-kit/src/assets",
      "node_modules/@gateway/contracts/package.json",
      "node_modules/@gateway/contracts/src",
      // Of the chain registry, the pages take only the chains' labels.
      "node_modules/@gateway/chains/package.json",
      "node_modules/@gateway/chains/src/labels.ts",
      "node_modules/@gateway/db/migrations",
    ],
  },
  { dir: "services/settlement", entries: main },
  { dir: "services/notifier", entries: main },
  // One watcher for every chain: each chain's process runs this bundle with its WATCHER_CHAIN.
  { dir: "services/watcher", entries: main },
  { dir: "signer", entries: main },
  { dir: "test/mail-catcher", entries: main },
  { dir: "test/price-server", entries: main },
  { dir: "test/solana-localnet", entries: main, external: ["litesvm"] },
  { dir: "test/sui-localnet", entries: main },
];

/**
 * CommonJS modules inside an ES module bundle still call `require` and read `__dirname`; these
 * give them the bundle's own, as Node gives a CommonJS file.
 */
const BANNER = [
  'import { createRequire as __gwCreateRequire } from "node:module";',
  'import { fileURLToPath as __gwBannerPath } from "node:url";',
  "const require = __gwCreateRequire(import.meta.url);",
  "const __filename = __gwBannerPath(import.meta.url);",
  'const __dirname = __gwBannerPath(new URL(".", import.meta.url));',
].join("\n");

function optionsFor(root: string, target: BuildTarget): BuildOptions {
  const packageDir = path.join(root, target.dir);
  const outdir = path.join(packageDir, "dist");
  return {
    absWorkingDir: root,
    entryPoints: Object.entries(target.entries).map(([out, entry]) => ({
      out,
      in: path.join(packageDir, entry),
    })),
    outdir,
    bundle: true,
    // Workspace packages are TypeScript only and npm packages of a workspace package are not
    // reachable from the service's node_modules under pnpm: both are bundled (docs/operations.md).
    packages: "bundle",
    external: target.external ?? [],
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    // Class and function names stay: logs and error kinds print them.
    keepNames: true,
    banner: { js: BANNER },
    metafile: true,
    write: false,
    logLevel: "error",
    plugins: [importMetaPlugin(packageDir, outdir)],
  };
}

interface Manifest {
  options: string;
  inputs: Record<string, string>;
}

const fingerprint = (file: string) => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.size}:${stat.mtimeMs}` : "missing";
};

function optionsKey(root: string, target: BuildTarget): string {
  const builder = readFileSync(new URL(import.meta.url));
  const plugin = readFileSync(new URL("./import-meta-plugin.ts", import.meta.url));
  return createHash("sha256")
    .update(JSON.stringify(target))
    .update(builder)
    .update(plugin)
    .update(lockfileHash(root))
    .digest("hex");
}

/**
 * The lockfile too: a patched or upgraded package may resolve to another folder while the files
 * the last build read are still there unchanged, which the inputs' fingerprints miss. Read once
 * per build process, however many bundles it checks.
 */
const lockfileHashes = new Map<string, string>();
function lockfileHash(root: string): string {
  let hash = lockfileHashes.get(root);
  if (hash === undefined) {
    hash = createHash("sha256")
      .update(readFileSync(path.join(root, "pnpm-lock.yaml")))
      .digest("hex");
    lockfileHashes.set(root, hash);
  }
  return hash;
}

/** True when the last build's outputs exist and none of its inputs or options changed. */
function isCurrent(root: string, target: BuildTarget): boolean {
  const manifestFile = path.join(root, target.dir, "dist", ".build-manifest.json");
  if (!existsSync(manifestFile)) return false;
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest;
  if (manifest.options !== optionsKey(root, target)) return false;
  if (
    !Object.keys(target.entries).every((out) => existsSync(path.join(root, target.dir, "dist", `${out}.js`)))
  )
    return false;
  return Object.entries(manifest.inputs).every(
    ([file, print]) => fingerprint(path.join(root, file)) === print,
  );
}

/**
 * Test files start clusters in parallel, each building first: a process starting a bundle must
 * read the whole old file or the whole new one, never one half-written.
 */
function writeAtomically(file: string, contents: Uint8Array | string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

export interface BuildReport {
  dir: string;
  built: boolean;
  ms: number;
}

export async function buildTarget(root: string, target: BuildTarget): Promise<BuildReport> {
  const started = performance.now();
  if (isCurrent(root, target)) return { dir: target.dir, built: false, ms: performance.now() - started };
  const result = await build(optionsFor(root, target));
  mkdirSync(path.join(root, target.dir, "dist"), { recursive: true });
  for (const file of result.outputFiles ?? []) writeAtomically(file.path, file.contents);
  const inputs = Object.fromEntries(
    Object.keys(result.metafile?.inputs ?? {})
      .filter((file) => !file.includes(":"))
      .map((file) => [file, fingerprint(path.join(root, file))]),
  );
  const manifest: Manifest = { options: optionsKey(root, target), inputs };
  writeAtomically(path.join(root, target.dir, "dist", ".build-manifest.json"), JSON.stringify(manifest));
  return { dir: target.dir, built: true, ms: performance.now() - started };
}

/** Builds the targets whose package folder or package name is listed (every target when none is). */
export async function buildServices(root: string, only: readonly string[] = []): Promise<BuildReport[]> {
  const nameOf = (t: BuildTarget) =>
    JSON.parse(readFileSync(path.join(root, t.dir, "package.json"), "utf8")).name;
  const targets = only.length
    ? BUILD_TARGETS.filter((t) => only.includes(t.dir) || only.includes(nameOf(t)))
    : BUILD_TARGETS;
  const unknown = only.filter((o) => !targets.some((t) => t.dir === o || nameOf(t) === o));
  if (unknown.length) throw new Error(`no build target for ${unknown.join(", ")}`);
  try {
    return await Promise.all(targets.map((t) => buildTarget(root, t)));
  } finally {
    // esbuild's JS API bundles in a child process that outlives the build, keeping the memory of
    // every bundle: the local runner showed one of 1.3 GiB beside the cluster it had just built.
    // The next build starts another.
    await stopEsbuild();
  }
}
