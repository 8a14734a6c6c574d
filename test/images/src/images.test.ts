// Issue #44: the production images are built here (`npm run images`, podman on a base made from
// Debian's packages) and each is started from its own filesystem, as its manifest runs it (its
// user, a read-only root, /tmp and its secrets mounted), against the machine's PostgreSQL and
// NATS. The API's image migrates a fresh database and serves a payment to a simulated completion
// whose webhook the notifier's image delivers; the signer's image unseals a sealed seed; the
// watcher's image follows a local Sui network. An image missing a file its service reads at run
// time fails here.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestMerchant, type TestMerchant } from "@gateway/api/testing";
import { createSql } from "@gateway/db";
import { freePort } from "@gateway/local-infra";
import { type DevCertFiles, sealMnemonic, writeCrl, writeDevCerts } from "@gateway/signer";
import { createSignerClient, generateApproverKey } from "@gateway/signer-client";
import { TEST_SIGNER_MNEMONIC } from "@gateway/signer-harness";
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
import { localTag, SERVICE_IMAGES } from "../../../scripts/images/service-images.js";
import {
  type ImageProcess,
  type MountedImage,
  mountImage,
  startInImage,
  waitForReady,
} from "./image-process.js";
import { type Workload, workload } from "./workload.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const PASSPHRASE = `image-test-${randomBytes(8).toString("hex")}`;
const work = mkdtempSync(path.join(tmpdir(), "gw-images-"));
const images = new Map<string, MountedImage>();
const running: ImageProcess[] = [];
let databaseUrl: string;
let databaseName: string;
let bus: TestBus;
let receiver: WebhookReceiver;
let sui: SuiLocalnet;
let certs: DevCertFiles;
let signerUrl: string;
let apiUrl: string;
let merchant: TestMerchant;
const readText = (file: string) => readFileSync(file, "utf8");
const JWT_SECRET = "image-test-secret-image-test-secret-0001";
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 5).toString("base64");

function image(name: string): MountedImage {
  const found = images.get(name);
  if (!found) throw new Error(`image ${name} is not mounted`);
  return found;
}

/** A folder of files as a Secret or ConfigMap volume shows them: owned by the pod's fsGroup. */
function volume(name: string, files: Record<string, string>, writable = false): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, from] of Object.entries(files)) {
    copyFileSync(from, path.join(dir, file));
    chownSync(path.join(dir, file), 0, 1000);
    chmodSync(path.join(dir, file), 0o440);
  }
  if (writable) chownSync(dir, 1000, 1000);
  return dir;
}

function textFile(name: string, text: string): string {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
}

/** Starts the image as the workload's manifest runs it, with local addresses and secrets. */
function start(
  name: string,
  spec: Workload,
  env: Record<string, string>,
  volumes: Record<string, string> = {},
): ImageProcess {
  const mounted = image(name);
  const mounts = spec.mounts.map((m) => {
    if (m.kind === "emptyDir") return { target: m.mountPath, source: "tmpfs" as const };
    const source = volumes[m.volume];
    if (!source) throw new Error(`${name}: no folder for volume ${m.volume}`);
    return { target: m.mountPath, source, readOnly: m.readOnly || m.kind !== "persistentVolumeClaim" };
  });
  const proc = startInImage(mounted, {
    env: { ...spec.env, LOG_LEVEL: "warn", ...env },
    mounts,
    readOnlyRoot: spec.readOnlyRoot,
    ...(spec.command ? { command: spec.command } : {}),
  });
  running.push(proc);
  return proc;
}

const infra = () => ({
  DATABASE_URL: databaseUrl,
  NATS_URL: bus.natsUrl,
  BUS_PREFIX: bus.prefix,
  BUS_STREAM_REPLICAS: "1",
});

beforeAll(async () => {
  if (spawnSync("podman", ["--version"]).status !== 0)
    throw new Error("podman is missing: `npm test` and `npm run images` install it from Debian's packages");
  const built = await buildImages({ root: ROOT, log: (line) => process.stderr.write(`[images] ${line}\n`) });
  for (const b of built.images) images.set(b.image.name, mountImage(b.tag));
  databaseName = `gwt_${process.ppid}_img_${randomBytes(4).toString("hex")}`;
  const admin = createSql({ url: adminDatabaseUrl(), max: 1 });
  await admin.unsafe(`create database ${databaseName}`);
  await admin.end();
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
  bus = await createTestBus();
  receiver = await startWebhookReceiver();
  certs = writeDevCerts({ dir: path.join(work, "ca"), development: false });
}, 1_800_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
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
      expect(mounted.uid, mounted.tag).toBe(1000);
      expect(mounted.uid, mounted.tag).toBe(workload("Deployment", "api").runAsUser);
    }
    expect(SERVICE_IMAGES.map(localTag)).toContain("localhost/gateway-api");
  });

  it("the API's image migrates a fresh database, as the migration Job runs it", async () => {
    const job = workload("Job", "migrate");
    const proc = start("api", job, { DATABASE_URL: databaseUrl });
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
    const spec = workload("Deployment", "signer");
    const [port, health] = [await freePort(), await freePort()];
    const settlementApprover = generateApproverKey();
    const sealed = textFile(
      "seed.sealed",
      sealMnemonic(TEST_SIGNER_MNEMONIC, PASSPHRASE, { N: 2 ** 14, r: 8, p: 1 }),
    );
    const passphrase = textFile("passphrase", `${PASSPHRASE}\n`);
    const crl = path.join(work, "crl.pem");
    writeCrl({ ca: { cert: certs.ca, key: certs.caKey }, revoked: [], out: crl });
    const proc = start(
      "signer",
      spec,
      {
        SIGNER_PORT: String(port),
        SIGNER_HEALTH_PORT: String(health),
        SIGNER_TRUSTED_APPROVERS: JSON.stringify([
          { keyId: "settlement", approves: "refund", publicKey: settlementApprover.publicKey },
        ]),
        SIGNER_CAPS: JSON.stringify({ "solana:*": { perIntent: "1000000000", perDay: "5000000000" } }),
      },
      {
        seed: volume("seed", { "seed.sealed": sealed }),
        "seed-passphrase": volume("seed-passphrase", { passphrase }),
        tls: volume("tls", { "ca.crt": certs.ca, "tls.crt": certs.serverCert, "tls.key": certs.serverKey }),
        "tls-crl": volume("tls-crl", { "crl.pem": crl }),
        audit: volume("audit", {}, true),
      },
    );
    await waitForReady(`http://127.0.0.1:${health}/readyz`, proc, 90_000);
    signerUrl = `https://127.0.0.1:${port}`;
    const client = createSignerClient({
      baseUrl: signerUrl,
      tls: {
        ca: readText(certs.ca),
        cert: readText(certs.clients.settlement.cert),
        key: readText(certs.clients.settlement.key),
      },
    });
    try {
      const addresses = await client.getServiceAddresses();
      expect(addresses.solana.live.vault).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    } finally {
      client.close();
    }
    expect(proc.output()).not.toContain(PASSPHRASE);
  }, 120_000);

  it("every service's image starts and answers /readyz", async () => {
    const api = workload("Deployment", "api");
    const apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    const clientCerts = (role: "api" | "settlement") =>
      volume(`${role}-certs`, {
        "ca.crt": certs.ca,
        "tls.crt": certs.clients[role].cert,
        "tls.key": certs.clients[role].key,
      });
    const signerClientEnv = { SIGNER_URL: signerUrl };
    const started: [string, ImageProcess, string][] = [];
    started.push([
      "api",
      start(
        "api",
        api,
        {
          ...infra(),
          ...signerClientEnv,
          PORT: String(apiPort),
          PUBLIC_BASE_URL: apiUrl,
          JWT_SECRET,
          WEBHOOK_SECRET_KEY,
          ALLOW_PRIVATE_WEBHOOKS: "true",
          // No live price feed is reachable from here; test mode uses fixed prices.
          PRICE_SOURCES: "pyth,coinbase",
          PRICE_PYTH_URL: "http://127.0.0.1:9/pyth",
          PRICE_COINBASE_URL: "http://127.0.0.1:9/coinbase",
        },
        { "signer-client-cert": clientCerts("api") },
      ),
      `${apiUrl}/readyz`,
    ]);
    const settlementHealth = await freePort();
    started.push([
      "settlement",
      start(
        "settlement",
        workload("Deployment", "settlement"),
        {
          ...infra(),
          ...signerClientEnv,
          HEALTH_PORT: String(settlementHealth),
          PUBLIC_BASE_URL: apiUrl,
          SETTLEMENT_APPROVER_SEED: generateApproverKey().seed,
          EXPIRY_POLL_MS: "200",
        },
        { "signer-client-cert": clientCerts("settlement") },
      ),
      `http://127.0.0.1:${settlementHealth}/readyz`,
    ]);
    const notifierHealth = await freePort();
    started.push([
      "notifier",
      start("notifier", workload("Deployment", "notifier"), {
        ...infra(),
        HEALTH_PORT: String(notifierHealth),
        WEBHOOK_SECRET_KEY,
        ALLOW_PRIVATE_WEBHOOKS: "true",
      }),
      `http://127.0.0.1:${notifierHealth}/readyz`,
    ]);
    sui = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 100 });
    const watcherHealth = await freePort();
    started.push([
      "watcher",
      start("watcher", workload("Deployment", "watcher-sui"), {
        ...infra(),
        HEALTH_PORT: String(watcherHealth),
        SUI_GRPC_URL: sui.url,
        SUI_NETWORK: "localnet",
        SUI_CHAIN_ID: sui.info().chainId,
        SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
        SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
      }),
      `http://127.0.0.1:${watcherHealth}/readyz`,
    ]);
    for (const [name, proc, url] of started) {
      await waitForReady(url, proc, 120_000);
      expect((await fetch(url)).status, name).toBe(200);
    }
    expect(await (await fetch(`http://127.0.0.1:${watcherHealth}/readyz`)).json()).toMatchObject({
      sui: "ok",
    });
  }, 300_000);

  it("the API's image serves a payment to a simulated completion; the notifier's delivers its webhook", async () => {
    const sql = createSql({ url: databaseUrl, max: 1 });
    try {
      merchant = await createTestMerchant(sql, "Image Shop");
    } finally {
      await sql.end();
    }
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
    await waitFor(
      () => receiver.received.some((r) => r.headers["x-gateway-event-type"] === "payment.completed"),
      {
        timeoutMs: 60_000,
      },
    );
    const delivery = receiver.received.find((r) => r.headers["x-gateway-event-type"] === "payment.completed");
    const event = verifyWebhook<{ payment: { id: string; status: string } }>({
      payload: delivery?.body ?? "",
      header: delivery?.headers["x-gateway-signature"] as string,
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
    const proc = start("api", hidden, {
      ...infra(),
      PORT: String(await freePort()),
      JWT_SECRET,
      WEBHOOK_SECRET_KEY,
    });
    expect(await proc.exited()).not.toBe(0);
    expect(proc.output()).toMatch(/ERR_MODULE_NOT_FOUND.*Cannot find package '(esbuild|@node-rs\/argon2)'/s);
  }, 60_000);
});
