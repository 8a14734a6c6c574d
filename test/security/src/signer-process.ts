import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type DevCertFiles, writeDevCerts } from "@gateway/signer";
import { createSignerClient, type SignerClient } from "@gateway/signer-client";

const SIGNER_DIR = path.resolve(import.meta.dirname, "../../../signer");

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface SignerProcess {
  child: ChildProcess;
  client: SignerClient;
  url: string;
  certs: DevCertFiles;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The signer as it is deployed: its own process from src/main.ts, gRPC over mutual TLS with
 * certificates from writeDevCerts, the seed from the environment (development), and the callers
 * reach it only through the real client.
 */
export async function startSignerProcess(env: Record<string, string>): Promise<SignerProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), "gw-sec-signer-"));
  const certs = writeDevCerts({ dir: path.join(dir, "certs") });
  const [port, healthPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: SIGNER_DIR,
    env: {
      PATH: process.env.PATH ?? "",
      SIGNER_ENV: "development",
      SIGNER_HOST: "127.0.0.1",
      SIGNER_PORT: String(port),
      SIGNER_HEALTH_PORT: String(healthPort),
      SIGNER_TLS_DIR: path.join(dir, "certs"),
      SIGNER_AUDIT_LOG: path.join(dir, "audit.jsonl"),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (c) => (log += c));
  child.stderr?.on("data", (c) => (log += c));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`signer exited early:\n${log}`);
    const ok = await fetch(`http://127.0.0.1:${healthPort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`signer not ready:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `https://127.0.0.1:${port}`;
  const client = createSignerClient({
    baseUrl: url,
    tls: {
      ca: readFileSync(certs.ca),
      cert: readFileSync(certs.clientCert),
      key: readFileSync(certs.clientKey),
    },
  });
  return {
    child,
    client,
    url,
    certs,
    output: () => log,
    stop: () =>
      new Promise((resolve) => {
        client.close();
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
