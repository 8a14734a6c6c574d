// A service started from its image's own filesystem, as a container runtime would start it where
// none can run: the image mounted by podman, a private mount namespace with the image as a
// read-only root (an overlay, so the runtime's mount points can be made first), /tmp and the
// other emptyDir volumes as tmpfs, secrets and volumes bound in, then chroot as the image's user
// with the image's environment, working directory and entry point. Processes share the host's
// network, so they reach the machine's PostgreSQL and NATS on 127.0.0.1.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ImageFacts, inspectImage, podman, withSbin } from "../../../scripts/images/podman.js";

export interface MountedImage {
  tag: string;
  /** The image's root filesystem on this machine (read it, never write it). */
  root: string;
  facts: ImageFacts;
  uid: number;
  gid: number;
  unmount(): void;
}

/** The uid and gid the image's USER names, from the image's own /etc/passwd. */
function userOf(root: string, user: string): { uid: number; gid: number } {
  const [name, group] = user.split(":");
  if (!name) throw new Error("the image names no USER: it would run as root");
  if (/^\d+$/.test(name)) return { uid: Number(name), gid: Number(group ?? name) };
  const line = readFileSync(path.join(root, "etc/passwd"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`the image's USER ${name} is not in its /etc/passwd`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

export function mountImage(tag: string): MountedImage {
  const facts = inspectImage(tag);
  const root = podman(["image", "mount", tag]).trim();
  return {
    tag,
    root,
    facts,
    ...userOf(root, facts.user),
    unmount: () => {
      podman(["image", "unmount", tag]);
    },
  };
}

export interface Mount {
  /** Where the runtime mounts it (a volumeMount's mountPath). */
  target: string;
  /** A folder on this machine, or "tmpfs" for an emptyDir. */
  source: string | "tmpfs";
  readOnly?: boolean;
}

export interface StartOptions {
  env: Record<string, string>;
  mounts: Mount[];
  /** The manifests' `readOnlyRootFilesystem`. */
  readOnlyRoot: boolean;
  /** Instead of the image's entry point (a Job's `command`). */
  command?: string[];
}

export interface ImageProcess {
  child: ChildProcess;
  output(): string;
  exited(): Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

function mountScript(image: MountedImage, state: string, options: StartOptions): string {
  const root = `${state}/root`;
  const lines = [
    "set -e",
    `mount -t tmpfs -o mode=0755 tmpfs ${quote(state)}`,
    `mkdir ${quote(`${state}/upper`)} ${quote(`${state}/work`)} ${quote(root)}`,
    `mount -t overlay overlay -o ${quote(`lowerdir=${image.root},upperdir=${state}/upper,workdir=${state}/work`)} ${quote(root)}`,
  ];
  for (const m of options.mounts) {
    const at = quote(path.posix.join(root, m.target));
    lines.push(`mkdir -p ${at}`);
    if (m.source === "tmpfs") lines.push(`mount -t tmpfs -o mode=1777 tmpfs ${at}`);
    else {
      lines.push(`mount --bind ${quote(m.source)} ${at}`);
      if (m.readOnly) lines.push(`mount -o remount,bind,ro ${at}`);
    }
  }
  lines.push(`mount -t proc proc ${quote(`${root}/proc`)}`, `mount --rbind /dev ${quote(`${root}/dev`)}`);
  if (options.readOnlyRoot) lines.push(`mount -o remount,ro ${quote(root)}`);
  const env = [...image.facts.env, ...Object.entries(options.env).map(([k, v]) => `${k}=${v}`)];
  const command = options.command ?? image.facts.entrypoint;
  lines.push(
    [
      "exec chroot",
      `--userspec=${image.uid}:${image.gid}`,
      "--groups=",
      quote(root),
      "/usr/bin/env -i",
      `--chdir=${quote(image.facts.workingDir)}`,
      ...env.map(quote),
      ...command.map(quote),
    ].join(" "),
  );
  return lines.join("\n");
}

/** Starts the image's entry point (or `command`); the mount namespace ends with the process. */
export function startInImage(image: MountedImage, options: StartOptions): ImageProcess {
  const state = mkdtempSync(path.join(tmpdir(), "gw-image-run-"));
  // unshare, sh, chroot and env each exec the next: the child's pid is the service's.
  const child = spawn(
    "unshare",
    ["--mount", "--propagation", "private", "--", "sh", "-c", mountScript(image, state, options)],
    { stdio: ["ignore", "pipe", "pipe"], env: withSbin(process.env) },
  );
  let log = "";
  child.stdout?.on("data", (c) => {
    log += c;
  });
  child.stderr?.on("data", (c) => {
    log += c;
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      rmSync(state, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return {
    child,
    output: () => log,
    exited: () => exit,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exit;
    },
  };
}

export async function waitForReady(url: string, proc: ImageProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`process exited early:\n${proc.output()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready in ${timeoutMs} ms:\n${proc.output()}`);
}
