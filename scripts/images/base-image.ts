// The base every service image is built on, made here because no registry is reachable: a
// minimal Debian root filesystem (debootstrap) with CA certificates, this machine's own Node.js
// (and npm, which the Dockerfile's build stage runs) and the non-root user `node` (uid 1000, as
// the Kubernetes manifests run it). Made once per recipe and Node.js binary, then reused.
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { imageId, inspectImage, podmanAsync, runAsync } from "./podman.js";

export const DEBIAN_SUITE = "bookworm";
const RECIPE_LABEL = "gateway.base.recipe";
/** Besides the minimal base: CA certificates, for TLS to PostgreSQL, NATS, RPC providers. */
const DEBIAN_PACKAGES = ["ca-certificates"];
/** What a root filesystem made for a container does not need: caches, manuals, translations. */
const PRUNED = [
  "var/cache/apt/archives",
  "var/lib/apt/lists",
  "usr/share/doc",
  "usr/share/man",
  "usr/share/info",
  "usr/share/locale",
];

export interface NodeRuntime {
  version: string;
  binary: string;
  /** npm's folder (`…/lib/node_modules/npm`), beside the binary as Node.js installs it. */
  npm: string;
}

export class BaseImageError extends Error {
  override name = "BaseImageError";
}

/** `>=MAJOR.MINOR[.PATCH]`, the one form `engines.node` takes in this repository. */
export function satisfiesEngines(version: string, range: string): boolean {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!wanted) throw new BaseImageError(`engines.node "${range}" is not of the form >=X.Y.Z`);
  const have = version.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const need = Number(wanted[i + 1] ?? 0);
    const got = have[i] ?? 0;
    if (got !== need) return got > need;
  }
  return true;
}

/** This machine's Node.js, checked against the root package.json's `engines.node`. */
export function machineNode(root: string): NodeRuntime {
  const binary = realpathSync(process.execPath);
  const version = process.versions.node;
  const range = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines?.node as string;
  if (!satisfiesEngines(version, range))
    throw new BaseImageError(`this machine's Node.js ${version} does not satisfy engines.node ${range}`);
  const npm = path.resolve(path.dirname(binary), "../lib/node_modules/npm");
  if (!existsSync(path.join(npm, "bin/npm-cli.js")))
    throw new BaseImageError(`npm is not beside ${binary} (looked in ${npm}); the build stage needs it`);
  return { version, binary, npm };
}

export function baseImageName(node: NodeRuntime): string {
  return `localhost/gateway-node:${node.version}-${DEBIAN_SUITE}`;
}

/** Changes whenever this file, the Node.js binary or npm's version changes. */
function recipeOf(node: NodeRuntime): string {
  const npmVersion = JSON.parse(readFileSync(path.join(node.npm, "package.json"), "utf8")).version;
  return createHash("sha256")
    .update(readFileSync(new URL(import.meta.url)))
    .update(readFileSync(node.binary))
    .update(`${npmVersion}`)
    .digest("hex")
    .slice(0, 16);
}

function installNode(rootfs: string, node: NodeRuntime): void {
  cpSync(node.binary, path.join(rootfs, "usr/local/bin/node"));
  cpSync(node.npm, path.join(rootfs, "usr/local/lib/node_modules/npm"), { recursive: true });
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(rootfs, "usr/local/bin/npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(rootfs, "usr/local/bin/npx"));
}

/** Node.js must run in the new root, as `node`: its shared libraries are the base's, not ours. */
async function checkRootfs(rootfs: string, node: NodeRuntime): Promise<void> {
  const says = (
    await runAsync(
      "chroot",
      [
        "--userspec=1000:1000",
        rootfs,
        "/usr/local/bin/node",
        "-p",
        "process.versions.node + ' ' + process.getuid()",
      ],
      "running Node.js in the new root filesystem as uid 1000",
    )
  ).trim();
  if (says !== `${node.version} 1000`) throw new BaseImageError(`Node.js in the new root said "${says}"`);
  if (!existsSync(path.join(rootfs, "etc/ssl/certs/ca-certificates.crt")))
    throw new BaseImageError("the new root filesystem has no CA bundle");
}

async function makeRootfs(
  rootfs: string,
  node: NodeRuntime,
  mirror: string,
  log: (line: string) => void,
): Promise<void> {
  log(`debootstrap: a minimal Debian ${DEBIAN_SUITE} from ${mirror}`);
  await runAsync(
    "debootstrap",
    ["--variant=minbase", `--include=${DEBIAN_PACKAGES.join(",")}`, DEBIAN_SUITE, rootfs, mirror],
    "debootstrap",
  );
  for (const dir of PRUNED) {
    rmSync(path.join(rootfs, dir), { recursive: true, force: true });
    mkdirSync(path.join(rootfs, dir), { recursive: true });
  }
  // The host's resolver and name would leak into the image; a runtime mounts its own.
  writeFileSync(path.join(rootfs, "etc/resolv.conf"), "");
  writeFileSync(path.join(rootfs, "etc/hosts"), "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n");
  writeFileSync(path.join(rootfs, "etc/hostname"), "localhost\n");
  log(`Node.js ${node.version} and npm from ${node.binary}`);
  installNode(rootfs, node);
  await runAsync("chroot", [rootfs, "groupadd", "--gid", "1000", "node"], "adding group node");
  await runAsync(
    "chroot",
    [rootfs, "useradd", "--uid", "1000", "--gid", "node", "--shell", "/bin/bash", "--create-home", "node"],
    "adding user node",
  );
  await checkRootfs(rootfs, node);
}

export interface BaseImageOptions {
  node: NodeRuntime;
  /** A Debian mirror debootstrap can reach. */
  mirror: string;
  /** Where the root filesystem is made (a few hundred MB, removed afterwards). */
  workDir: string;
  log: (line: string) => void;
}

/** The base image's name, made unless an image of the same recipe exists already. */
export async function ensureBaseImage({
  node,
  mirror,
  workDir,
  log,
}: BaseImageOptions): Promise<{ name: string; made: boolean }> {
  const name = baseImageName(node);
  const recipe = recipeOf(node);
  if (imageId(name) && inspectImage(name).labels[RECIPE_LABEL] === recipe) return { name, made: false };
  const dir = mkdtempSync(path.join(workDir, "gateway-base-"));
  try {
    const rootfs = path.join(dir, "rootfs");
    await makeRootfs(rootfs, node, mirror, log);
    const tarball = path.join(dir, "rootfs.tar");
    await runAsync(
      "tar",
      ["--numeric-owner", "-C", rootfs, "-cf", tarball, "."],
      "packing the root filesystem",
    );
    await podmanAsync([
      "import",
      "--change",
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--change",
      `LABEL ${RECIPE_LABEL}=${recipe}`,
      "--change",
      'CMD ["node"]',
      tarball,
      name,
    ]);
    return { name, made: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
