// The process as the local runner starts it: development mode, mnemonic from the
// environment, plaintext gRPC, health on loopback; and refusing to start without a seed.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@gateway/local-infra";
import { createSignerClient } from "@gateway/signer-client";
import { afterAll, describe, expect, it } from "vitest";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitReady(port: number, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  for (let i = 0; i < 150 && !done; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("signer did not become ready");
}

const auditFolder = mkdtempSync(join(tmpdir(), "signer-main-"));
afterAll(() => rmSync(auditFolder, { recursive: true, force: true }));

describe("signer process", () => {
  it("starts in development, serves gRPC, and stops on SIGTERM", async () => {
    const [port, healthPort] = [await freePort(), await freePort()];
    const mnemonic = "test test test test test test test test test test test junk";
    const proc = start({
      SIGNER_ENV: "development",
      SIGNER_SEED_MNEMONIC: mnemonic,
      SIGNER_HOST: "127.0.0.1",
      SIGNER_PORT: String(port),
      SIGNER_HEALTH_PORT: String(healthPort),
      SIGNER_AUDIT_LOG: join(auditFolder, "audit.jsonl"),
    });
    try {
      await waitReady(healthPort, proc.exited);
      const client = createSignerClient({ baseUrl: `http://127.0.0.1:${port}` });
      expect((await client.getServiceAddresses()).sui.live.vault).toMatch(/^0x[0-9a-f]{64}$/);
      client.close();
    } finally {
      proc.child.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    expect(proc.output()).not.toContain("junk");
  }, 90_000);

  it("refuses to start without a seed, naming the variable", async () => {
    const proc = start({ SIGNER_ENV: "development" });
    expect(await proc.exited).toBe(78);
    expect(proc.output()).toContain("SIGNER_SEALED_SEED_FILE");
  }, 60_000);
});
