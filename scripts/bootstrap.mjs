#!/usr/bin/env node
// Entry point of `npm start` and `npm test` on any machine, fresh or not. Plain Node with no
// dependencies, because nothing is installed yet when it runs: it installs pnpm and the
// workspace, the Debian packages the tests need, then hands over to TypeScript.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const command = process.argv[2];
const rest = process.argv.slice(3);

function say(line) {
  process.stderr.write(`[bootstrap] ${line}\n`);
}

function has(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...options });
  if (result.status !== 0) {
    say(`${cmd} ${args.join(" ")} failed with ${result.status ?? result.signal}`);
    process.exit(result.status ?? 1);
  }
}

function pnpmCommand() {
  if (has("pnpm")) return ["pnpm"];
  say("installing pnpm 10 (corepack is not usable here)");
  const global = spawnSync("npm", ["install", "-g", "pnpm@10"], { stdio: "inherit" });
  if (global.status === 0 && has("pnpm")) return ["pnpm"];
  return ["npx", "--yes", "pnpm@10"];
}

let aptUpdated = false;
function ensureDebian(executable, pkg) {
  if (has(executable) || existsSync(`/usr/sbin/${executable}`) || existsSync(`/usr/bin/${executable}`))
    return;
  if (process.getuid?.() !== 0 && !has("sudo")) {
    say(`${executable} is missing and we are not root: install Debian package ${pkg}`);
    process.exit(1);
  }
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  say(`installing Debian package ${pkg}`);
  if (!aptUpdated) {
    execFileSync(
      sudo[0] ?? "apt-get",
      [...sudo.slice(1), ...(sudo.length ? ["apt-get"] : []), "update", "-qq"],
      { stdio: "inherit", env },
    );
    aptUpdated = true;
  }
  execFileSync(
    sudo[0] ?? "apt-get",
    [
      ...sudo.slice(1),
      ...(sudo.length ? ["apt-get"] : []),
      "install",
      "-y",
      "-qq",
      "--no-install-recommends",
      pkg,
    ],
    { stdio: "inherit", env },
  );
}

function install(pnpm) {
  const frozen = process.env.CI ? ["--frozen-lockfile"] : [];
  run(pnpm[0], [...pnpm.slice(1), "install", ...frozen, "--reporter=append-only"]);
}

const pnpm = pnpmCommand();
install(pnpm);
ensureDebian("nats-server", "nats-server");
ensureDebian("openssl", "openssl");

if (command === "start") {
  const tsx = path.join(root, "node_modules/tsx/dist/loader.mjs");
  const child = spawn(process.execPath, ["--import", `file://${tsx}`, "scripts/local-cluster.ts", ...rest], {
    stdio: "inherit",
    cwd: root,
  });
  // Ctrl-C reaches the whole foreground process group; the cluster script stops what it started.
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (command === "images") {
  // podman builds the images; debootstrap makes their base (scripts/images.ts says the rest).
  ensureDebian("podman", "podman");
  ensureDebian("debootstrap", "debootstrap");
  run(pnpm[0], [...pnpm.slice(1), "exec", "tsx", "scripts/images.ts", ...rest]);
} else if (command === "test") {
  ensureDebian("chromium", "chromium");
  // The soak's shared-memory test forks a Python process that maps a segment with its child.
  ensureDebian("python3", "python3-minimal");
  // The image test builds every service's image and starts each from its filesystem.
  ensureDebian("podman", "podman");
  ensureDebian("debootstrap", "debootstrap");
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  say(`running checks and tests of ${pkg.name}`);
  run(pnpm[0], [...pnpm.slice(1), "exec", "tsx", "scripts/run-tests.ts", ...rest]);
} else {
  say("usage: bootstrap.mjs start|test|images");
  process.exit(2);
}
