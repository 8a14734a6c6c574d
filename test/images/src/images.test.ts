// Issue #44: the production images are built here (`npm run images`, podman on a base made from
// Debian's packages) and each is started from its own filesystem, as its manifest runs it (its
// user, a read-only root, /tmp and its secrets mounted), against the machine's PostgreSQL and
// NATS. The API's image migrates a fresh database and serves a payment to a simulated completion
// whose webhook the notifier's image delivers; the signer's image unseals a sealed seed; the
// watcher's image follows a local Sui network. An image missing a file its service reads at run
// time fails here.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestMerchant } from "@gateway/api/testing";
import { createSql } from "@gateway/db";
import { freePort } from "@gateway/local-infra";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import {
  adminDatabaseUrl,
  createTestBus,
  startWebhookReceiver,
  type TestBus,
  type WebhookReceiver,
  waitFor,
} from "@gateway/testkit";
import { verifyWebhook } from "@gateway/webhook-signature";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildImages } from "../../../scripts/images/build-images.js";
import { SERVICE_IMAGES } from "../../../scripts/images/service-images.js";
import { ImageCluster, JWT_SECRET, WEBHOOK_SECRET_KEY } from "./image-cluster.js";
import { type MountedImage, mountImage } from "./image-process.js";
import { type Workload, workload } from "./workload.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const PASSPHRASE = `image-test-${randomBytes(8).toString("hex")}`;
const work = mkdtempSync(path.join(tmpdir(), "gw-images-"));
const images = new Map<string, MountedImage>();
let databaseUrl: string;
let databaseName: string;
let bus: TestBus;
let receiver: WebhookReceiver;
let sui: SuiLocalnet | undefined;
let cluster: ImageCluster;
let signerUrl: string;
let apiUrl: string;

beforeAll(async () => {
  if (spawnSync("podman", ["--version"]).status !== 0)
    throw new Error("podman is missing: `npm test` and `npm run images` install it from Debian's packages");
  const built = await buildImages({ root: ROOT, log: (line) => process.stderr.write(`[images] ${line}\n`) });
  for (const b of built.images) images.set(b.image.name, mountImage(b.tag));
  // An empty database, not the run's migrated template: the API's image migrates it.
  databaseName = `gwt_${process.ppid}_img_${randomBytes(4).toString("hex")}`;
  const admin = createSql({ url: adminDatabaseUrl(), max: 1 });
  await admin.unsafe(`create database ${databaseName}`);
  await admin.end();
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
  bus = await createTestBus();
  receiver = await startWebhookReceiver();
  cluster = new ImageCluster({
    images,
    work,
    databaseUrl,
    natsUrl: bus.natsUrl,
    busPrefix: bus.prefix,
    passphrase: PASSPHRASE,
  });
}, 1_800_000);

afterAll(async () => {
  await cluster?.stop("SIGKILL");
  for (const mounted of images.values()) mounted.unmount();
  await sui?.close();
  await receiver?.close();
  await bus?.cleanup();
  if (databaseName) {
    const admin = createSql({ url: adminDatabaseUrl(), max: 1 });
    await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin.end();
  }
  rmSync(work, { recursive: true, force: true });
});

describe("the production images", () => {
  it("are built for every service, each run as the manifests' non-root user", () => {
    expect([...images.keys()].sort()).toEqual(SERVICE_IMAGES.map((i) => i.name).sort());
    for (const mounted of images.values()) {
      expect(mounted.tag).toMatch(/^localhost\/gateway-/);
      expect(mounted.uid, mounted.tag).not.toBe(0);
      expect(mounted.uid, mounted.tag).toBe(workload("Deployment", "api").runAsUser);
    }
  });

  it("the API's image migrates a fresh database, as the migration Job runs it", async () => {
    const proc = cluster.start("api", workload("Job", "migrate"), { DATABASE_URL: databaseUrl });
    expect(await proc.exited(), proc.output()).toBe(0);
    const sql = createSql({ url: databaseUrl, max: 1 });
    try {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from merchants`;
      expect(row?.n).toBe(0);
    } finally {
      await sql.end();
    }
  }, 120_000);

  it("the signer's image starts with a sealed seed and answers over mutual TLS", async () => {
    const signer = await cluster.startSigner();
    signerUrl = signer.url;
    const client = cluster.signerClient(signerUrl, "settlement");
    try {
      const addresses = await client.getServiceAddresses();
      expect(addresses.solana.live.vault).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    } finally {
      client.close();
    }
    expect(signer.proc.output()).not.toContain(PASSPHRASE);
  }, 120_000);

  it("every service's image starts and answers /readyz", async () => {
    sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 });
    const started = await cluster.startServices(signerUrl, sui);
    apiUrl = started.apiUrl;
    expect(started.ready.map((s) => s.name).sort()).toEqual(["api", "notifier", "settlement", "watcher"]);
    for (const service of started.ready)
      expect((await fetch(service.readyUrl)).status, service.name).toBe(200);
    const watcher = started.ready.find((s) => s.name === "watcher");
    expect(await (await fetch(watcher?.readyUrl ?? "")).json()).toMatchObject({ sui: "ok" });
  }, 300_000);

  it("the API's image serves a payment to a simulated completion; the notifier's delivers its webhook", async () => {
    const sql = createSql({ url: databaseUrl, max: 1 });
    const merchant = await createTestMerchant(sql, "Image Shop").finally(() => sql.end());
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(apiUrl + route, {
        method,
        headers: {
          "x-api-key": merchant.testKey,
          "content-type": "application/json",
          "idempotency-key": randomBytes(8).toString("hex"),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // The native password hash the API's image carries beside its bundle.
    const signup = await fetch(`${apiUrl}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: "owner@image.test",
        password: "a long image password",
        business_name: "Img",
      }),
    });
    expect(signup.status, await signup.clone().text()).toBe(201);
    const endpoint = await call("POST", "/webhooks", { url: receiver.url, is_test: true });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const secret = endpoint.body.secret as string;
    const created = await call("POST", "/payments", {
      amount: 12.5,
      currency: "USD",
      description: "Image order",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    // The checkout page and its script, bundled at start-up by the esbuild the image carries.
    const page = await (await fetch(`${apiUrl}/gateway?payment_id=${id}`)).text();
    const script = page.match(/\/gateway\/assets\/checkout\.js\?v=[0-9a-f]{12}/)?.[0];
    expect(script, page.slice(0, 500)).toBeDefined();
    expect((await fetch(apiUrl + script)).status).toBe(200);
    // A deposit address from the signer's image, over mutual TLS with the API's certificate.
    const wallet = await call("POST", `/payments/checkout/${id}/generate-wallet`, {
      chain: "solana",
      coin: "USDC",
    });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
    expect(wallet.body.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const simulated = await call("POST", `/payments/checkout/${id}/simulate`, { outcome: "paid" });
    expect(simulated.status, JSON.stringify(simulated.body)).toBeLessThan(300);
    await waitFor(async () => (await call("GET", `/payments/${id}`)).body.status === "completed", {
      timeoutMs: 60_000,
    });
    const completed = await waitFor(
      () => receiver.received.find((r) => r.headers["x-gateway-event-type"] === "payment.completed"),
      { timeoutMs: 60_000 },
    );
    const event = verifyWebhook<{ payment: { id: string; status: string } }>({
      payload: completed.body,
      header: completed.headers["x-gateway-signature"] as string,
      secret,
    });
    expect(event.data.payment).toMatchObject({ id, status: "completed" });
  }, 180_000);

  it("notices an image without a file its service reads at run time", async () => {
    // Its packages hidden under an empty folder, as if the image had left them out: the API's
    // image must not find them anywhere else (the host's are outside its root).
    const api = workload("Deployment", "api");
    const hidden: Workload = {
      ...api,
      mounts: [
        ...api.mounts.filter((m) => m.kind === "emptyDir"),
        { volume: "hidden", mountPath: "/app/node_modules", readOnly: true, kind: "emptyDir" },
      ],
    };
    const proc = cluster.start("api", hidden, {
      ...cluster.infra(),
      PORT: String(await freePort()),
      JWT_SECRET,
      WEBHOOK_SECRET_KEY,
    });
    expect(await proc.exited()).not.toBe(0);
    expect(proc.output()).toMatch(/ERR_MODULE_NOT_FOUND.*Cannot find package '(esbuild|@node-rs\/argon2)'/s);
  }, 60_000);
});
