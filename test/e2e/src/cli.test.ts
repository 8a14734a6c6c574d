// The `gateway` command as a merchant runs it (`npm run gateway -- …` runs the same file), against
// a running API, settlement and notifier: `listen` forwards the events that `trigger` causes to a
// local server, which verifies each with the secret `listen` printed; and the CLI's failures are
// one plain line and a non-zero exit.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { createTestMerchant, startTestApi, type TestApi, type TestMerchant } from "@gateway/api/testing";
import { freePort } from "@gateway/local-infra";
import {
  type Notifier,
  type Settlement,
  startTestNotifier,
  startTestSettlement,
} from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { verifyWebhook, type WebhookEvent } from "@gateway/webhook-signature";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./processes.js";

const BIN = path.join(ROOT, "packages/cli/bin/gateway.mjs");

let api: TestApi;
let settlement: Settlement;
let notifier: Notifier;
let merchant: TestMerchant;
let server: http.Server;
let serverUrl: string;
/** What the local server got, each body verified with the secret the listener printed. */
const verified: WebhookEvent<{ payment: { id: string; status: string } }>[] = [];
const refused: string[] = [];
let secret: string | undefined;

beforeAll(async () => {
  api = await startTestApi();
  settlement = await startTestSettlement(api);
  notifier = await startTestNotifier(api);
  merchant = await createTestMerchant(api.db.sql);
  // The merchant's own endpoint: it verifies the raw body as docs/webhooks.md says.
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        verified.push(
          verifyWebhook({
            payload: Buffer.concat(chunks),
            header: req.headers["x-gateway-signature"],
            secret: secret ?? "",
          }),
        );
        res.writeHead(200).end("ok");
      } catch (err) {
        refused.push((err as Error).message);
        res.writeHead(400).end("bad signature");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await notifier?.stop();
  await settlement?.stop();
  await api?.close();
});

function env(overrides: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH ?? "",
    GATEWAY_API_KEY: merchant.testKey,
    GATEWAY_BASE_URL: api.baseUrl,
    ...overrides,
  };
}

async function gateway(args: string[], overrides: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: env(overrides),
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("gateway listen + gateway trigger", () => {
  let listener: ChildProcess;
  let output = "";

  afterAll(() => {
    listener?.kill("SIGKILL");
  });

  it("forwards every outcome's events, signed with the secret it printed first", async () => {
    listener = spawn(process.execPath, [BIN, "listen", "--forward-to", serverUrl, "--interval", "200"], {
      cwd: ROOT,
      env: env(),
    });
    listener.stdout!.on("data", (c: Buffer) => {
      output += c.toString();
    });
    listener.stderr!.on("data", (c: Buffer) => {
      output += c.toString();
    });
    await waitFor(() => output.includes("Ready"), { timeoutMs: 20_000, what: "the listener" });
    const first = output.split("\n")[0]!;
    secret = /(whsec_[0-9A-Za-z]{40})/.exec(first)?.[1];
    expect(secret, first).toBeDefined();

    const triggered: Record<string, { id: string; status: string }> = {};
    for (const event of ["payment.completed", "payment.underpaid", "payment.refunded", "payment.expired"]) {
      const run = await gateway(["trigger", event, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      triggered[event] = JSON.parse(lines[0]!);
      expect(run.stderr).toContain("Created test payment");
    }
    expect(triggered["payment.completed"]!.status).toBe("completed");
    expect(triggered["payment.underpaid"]!.status).toBe("refunded");
    expect(triggered["payment.expired"]!.status).toBe("expired");

    const want = [
      [triggered["payment.completed"]!.id, "payment.completed"],
      [triggered["payment.underpaid"]!.id, "payment.underpaid"],
      [triggered["payment.underpaid"]!.id, "payment.refunded"],
      [triggered["payment.refunded"]!.id, "payment.underpaid"],
      [triggered["payment.refunded"]!.id, "payment.refunded"],
      [triggered["payment.expired"]!.id, "payment.expired"],
    ];
    await waitFor(
      () => want.every(([id, type]) => verified.some((e) => e.type === type && e.data.payment.id === id)),
      { timeoutMs: 20_000, what: "every triggered event at the local server" },
    );
    expect(refused).toEqual([]);
    // Each exactly once, and as the events API and the webhooks carry it.
    expect(new Set(verified.map((e) => e.id)).size).toBe(verified.length);
    const one = verified.find((e) => e.type === "payment.completed")!;
    const stored = await fetch(`${api.baseUrl}/events/${one.id}`, {
      headers: { "x-api-key": merchant.testKey },
    });
    expect(await stored.json()).toEqual(one);
    expect(output).toMatch(/payment\.completed evt_\w+ → .* 200 \(\d+ ms\)/);

    listener.kill("SIGINT");
    await waitFor(() => listener.exitCode !== null, { timeoutMs: 10_000, what: "the listener to stop" });
    expect(listener.exitCode).toBe(0);
  });
});

describe("gateway payments", () => {
  it("lists and gets payments of the key's mode, in words or JSON", async () => {
    const list = await gateway(["--json", "payments", "list", "--limit", "2"]);
    expect(list.code, list.stderr).toBe(0);
    const page = JSON.parse(list.stdout);
    expect(page).toMatchObject({ object: "list", has_more: true });
    expect(page.data).toHaveLength(2);
    const words = await gateway(["payments", "get", page.data[0].id]);
    expect(words.code).toBe(0);
    expect(words.stdout).toContain(page.data[0].id);
    expect(words.stdout).toMatch(/status\s+\w+/);
    const missing = await gateway(["payments", "get", crypto.randomUUID()]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim().split("\n")).toEqual(["No such payment. (resource_not_found)"]);
  });
});

describe("gateway: bad input in one plain line", () => {
  it("a wrong key names the key", async () => {
    const run = await gateway(["payments", "list"], {
      GATEWAY_API_KEY: "gw_test_0000000000000000000000000000",
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("GATEWAY_API_KEY");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("an unreachable URL is retried with backoff, said so, then named", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await gateway(["payments", "list"], { GATEWAY_BASE_URL: closed });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split("\n");
    expect(lines.slice(0, -1).every((l) => /trying again after .* \(retry \d of 4\)/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe(`Could not reach the API at ${closed} (GATEWAY_BASE_URL): connection refused.`);
  });

  it("a live key cannot listen or trigger; unknown events and commands are refused", async () => {
    const live = await gateway(["listen", "--forward-to", serverUrl], { GATEWAY_API_KEY: merchant.liveKey });
    expect(live.code).not.toBe(0);
    expect(live.stdout).toBe("");
    expect(live.stderr.trim()).toBe(
      "gateway listen needs a test key (gw_test_…); GATEWAY_API_KEY is a live key.",
    );
    const unknown = await gateway(["trigger", "payment.nope"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
    const command = await gateway(["frobnicate"]);
    expect(command.code).not.toBe(0);
    expect(command.stderr.trim().split("\n")[0]).toContain("unknown command 'frobnicate'");
    const noKey = await gateway(["payments", "list"], { GATEWAY_API_KEY: "" });
    expect(noKey.stderr.trim()).toBe("GATEWAY_API_KEY is not set: export your API key (gw_test_…) first.");
  });
});
