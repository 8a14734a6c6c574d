// podman as this project calls it: as root without a systemd session or a journal, the
// cgroup manager and event log must be the plain ones, and no image is ever pulled (no
// registry need be reachable; every base is made here).
import { type SpawnSyncOptions, spawn, spawnSync } from "node:child_process";

/** debootstrap and chroot live in /usr/sbin, which a non-login root shell may not have on PATH. */
export function withSbin(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const path = (env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":");
  for (const dir of ["/usr/local/sbin", "/usr/sbin", "/sbin"]) if (!path.includes(dir)) path.push(dir);
  return { ...env, PATH: path.join(":") };
}

const GLOBAL_FLAGS = ["--cgroup-manager", "cgroupfs", "--events-backend", "file"];

export class PodmanError extends Error {
  override name = "PodmanError";
}

/** Runs `podman <args>`; its standard output, or a PodmanError with what it printed. */
export function podman(args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync("podman", [...GLOBAL_FLAGS, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error)
    throw new PodmanError(`podman ${args[0]}: ${result.error.message}`, { cause: result.error });
  if (result.status !== 0) {
    // A build prints its steps' own errors on standard output, podman's on standard error.
    const said = [result.stdout, result.stderr]
      .map((out) => (typeof out === "string" ? out.trim().split("\n").slice(-30).join("\n") : ""))
      .filter(Boolean)
      .join("\n");
    throw new PodmanError(`podman ${args.join(" ")} exited with ${result.status}${said ? `:\n${said}` : ""}`);
  }
  return typeof result.stdout === "string" ? result.stdout : "";
}

/**
 * Runs a command without blocking the event loop (a build takes minutes; a test runner's worker
 * must keep answering meanwhile); resolves to its standard output, or rejects with its last lines.
 */
export function runAsync(cmd: string, args: string[], what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: withSbin(process.env) });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (c) => {
      stdout += c;
      output = (output + c).slice(-16_000);
    });
    child.stderr.on("data", (c) => {
      output = (output + c).slice(-16_000);
    });
    child.once("error", (err) => reject(new PodmanError(`${what}: ${err.message}`, { cause: err })));
    child.once("close", (code) => {
      if (code === 0) return resolve(stdout);
      const tail = output.trim().split("\n").slice(-30).join("\n");
      reject(new PodmanError(`${what} failed (${cmd} exited with ${code}):\n${tail}`));
    });
  });
}

/** `podman <args>` without blocking; see runAsync. */
export function podmanAsync(args: string[]): Promise<string> {
  return runAsync("podman", [...GLOBAL_FLAGS, ...args], `podman ${args[0]}`);
}

/** The image's id, or undefined when there is no image of that name. */
export function imageId(name: string): string | undefined {
  const result = spawnSync("podman", [...GLOBAL_FLAGS, "image", "inspect", "--format", "{{.Id}}", name], {
    encoding: "utf8",
  });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

export interface ImageFacts {
  id: string;
  size: number;
  labels: Record<string, string>;
  user: string;
  workingDir: string;
  entrypoint: string[];
  env: string[];
}

export function inspectImage(name: string): ImageFacts {
  const [facts] = JSON.parse(podman(["image", "inspect", name])) as {
    Id: string;
    Size: number;
    Labels: Record<string, string> | null;
    Config: { User?: string; WorkingDir?: string; Entrypoint?: string[]; Env?: string[] };
  }[];
  if (!facts) throw new PodmanError(`no image ${name}`);
  return {
    id: facts.Id,
    size: facts.Size,
    labels: facts.Labels ?? {},
    user: facts.Config.User ?? "",
    workingDir: facts.Config.WorkingDir ?? "/",
    entrypoint: facts.Config.Entrypoint ?? [],
    env: facts.Config.Env ?? [],
  };
}
