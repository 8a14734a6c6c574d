// The images started as the manifests run them (workload.ts), with local addresses and secrets:
// the signer from a sealed seed, then the API, settlement, the notifier and the Sui watcher,
// each timed from its start to its first /readyz 200. Used by the image test and bench/.
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "@gateway/local-infra";
import { type DevCertFiles, sealMnemonic, writeCrl, writeDevCerts } from "@gateway/signer";
import { createSignerClient, generateApproverKey, type SignerClient } from "@gateway/signer-client";
import { TEST_SIGNER_MNEMONIC } from "@gateway/signer-harness";
import type { SuiLocalnet } from "@gateway/sui-localnet";
import { type ImageProcess, type MountedImage, startInImage, waitForReady } from "./image-process.js";
import { type Workload, workload } from "./workload.js";

export const JWT_SECRET = "image-test-secret-image-test-secret-0001";
export const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 5).toString("base64");

export interface ImageClusterOptions {
  images: ReadonlyMap<string, MountedImage>;
  /** A folder for certificates, secrets and the signer's audit log. */
  work: string;
  databaseUrl: string;
  natsUrl: string;
  busPrefix: string;
  passphrase: string;
}

export interface StartedImage {
  name: string;
  proc: ImageProcess;
  readyUrl: string;
  /** From the start to the first /readyz 200. */
  readyMs: number;
}

/** Starts images as their manifests run them; stops every one it started. */
export class ImageCluster {
  readonly certs: DevCertFiles;
  readonly #options: ImageClusterOptions;
  readonly #running: ImageProcess[] = [];

  constructor(options: ImageClusterOptions) {
    this.#options = options;
    this.certs = writeDevCerts({ dir: path.join(options.work, "ca"), development: false });
  }

  infra(): Record<string, string> {
    const { databaseUrl, natsUrl, busPrefix } = this.#options;
    return { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, BUS_PREFIX: busPrefix, BUS_STREAM_REPLICAS: "1" };
  }

  /** The image as the workload's manifest runs it, with these variables and volume folders. */
  start(name: string, spec: Workload, env: Record<string, string>, volumes: Record<string, string> = {}) {
    const image = this.#options.images.get(name);
    if (!image) throw new Error(`image ${name} is not mounted`);
    const mounts = spec.mounts.map((m) => {
      if (m.kind === "emptyDir") return { target: m.mountPath, source: "tmpfs" as const };
      const source = volumes[m.volume];
      if (!source) throw new Error(`${name}: no folder for volume ${m.volume}`);
      return { target: m.mountPath, source, readOnly: m.readOnly || m.kind !== "persistentVolumeClaim" };
    });
    const proc = startInImage(image, {
      env: { ...spec.env, LOG_LEVEL: "warn", ...env },
      mounts,
      readOnlyRoot: spec.readOnlyRoot,
      ...(spec.command ? { command: spec.command } : {}),
    });
    this.#running.push(proc);
    return proc;
  }

  async #startReady(name: string, proc: ImageProcess, readyUrl: string): Promise<StartedImage> {
    const started = performance.now();
    await waitForReady(readyUrl, proc, 120_000);
    return { name, proc, readyUrl, readyMs: performance.now() - started };
  }

  /** A folder of files as a Secret or ConfigMap volume shows them: readable by the pod's fsGroup. */
  volume(name: string, files: Record<string, string>, writable = false): string {
    const dir = path.join(this.#options.work, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, from] of Object.entries(files)) {
      copyFileSync(from, path.join(dir, file));
      chownSync(path.join(dir, file), 0, 1000);
      chmodSync(path.join(dir, file), 0o440);
    }
    if (writable) chownSync(dir, 1000, 1000);
    return dir;
  }

  #textFile(name: string, text: string): string {
    const file = path.join(this.#options.work, name);
    writeFileSync(file, text);
    return file;
  }

  /** The signer in production mode: the seed sealed, its passphrase a file, mutual TLS. */
  async startSigner(run = "signer"): Promise<StartedImage & { url: string }> {
    const { passphrase } = this.#options;
    const [port, health] = [await freePort(), await freePort()];
    const sealed = sealMnemonic(TEST_SIGNER_MNEMONIC, passphrase, { N: 2 ** 14, r: 8, p: 1 });
    const crl = path.join(this.#options.work, `${run}-crl.pem`);
    writeCrl({ ca: { cert: this.certs.ca, key: this.certs.caKey }, revoked: [], out: crl });
    const proc = this.start(
      "signer",
      workload("Deployment", "signer"),
      {
        SIGNER_PORT: String(port),
        SIGNER_HEALTH_PORT: String(health),
        SIGNER_TRUSTED_APPROVERS: JSON.stringify([
          { keyId: "settlement", approves: "refund", publicKey: generateApproverKey().publicKey },
        ]),
        SIGNER_CAPS: JSON.stringify({ "solana:*": { perIntent: "1000000000", perDay: "5000000000" } }),
      },
      {
        seed: this.volume(`${run}-seed`, { "seed.sealed": this.#textFile(`${run}.sealed`, sealed) }),
        "seed-passphrase": this.volume(`${run}-passphrase`, {
          passphrase: this.#textFile(`${run}.passphrase`, `${passphrase}\n`),
        }),
        tls: this.volume(`${run}-tls`, {
          "ca.crt": this.certs.ca,
          "tls.crt": this.certs.serverCert,
          "tls.key": this.certs.serverKey,
        }),
        "tls-crl": this.volume(`${run}-tls-crl`, { "crl.pem": crl }),
        audit: this.volume(`${run}-audit`, {}, true),
      },
    );
    const ready = await this.#startReady("signer", proc, `http://127.0.0.1:${health}/readyz`);
    return { ...ready, url: `https://127.0.0.1:${port}` };
  }

  /** A client of the signer with the certificate of `role`. */
  signerClient(url: string, role: "api" | "settlement"): SignerClient {
    const read = (file: string) => readFileSync(file, "utf8");
    return createSignerClient({
      baseUrl: url,
      tls: {
        ca: read(this.certs.ca),
        cert: read(this.certs.clients[role].cert),
        key: read(this.certs.clients[role].key),
      },
    });
  }

  #clientCerts(role: "api" | "settlement", run: string): string {
    return this.volume(`${run}-${role}-certs`, {
      "ca.crt": this.certs.ca,
      "tls.crt": this.certs.clients[role].cert,
      "tls.key": this.certs.clients[role].key,
    });
  }

  /** The API (its public URL too), settlement, the notifier and the Sui watcher, all started at once. */
  async startServices(signerUrl: string, sui: SuiLocalnet, run = "services") {
    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const [settlementHealth, notifierHealth, watcherHealth] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const starting = [
      ["api", this.#api(apiPort, signerUrl, run), `${apiUrl}/readyz`],
      [
        "settlement",
        this.#settlement(settlementHealth, apiUrl, signerUrl, run),
        `http://127.0.0.1:${settlementHealth}/readyz`,
      ],
      ["notifier", this.#notifier(notifierHealth), `http://127.0.0.1:${notifierHealth}/readyz`],
      ["watcher", this.#suiWatcher(watcherHealth, sui), `http://127.0.0.1:${watcherHealth}/readyz`],
    ] as const;
    const ready = await Promise.all(starting.map(([name, proc, url]) => this.#startReady(name, proc, url)));
    return { apiUrl, ready };
  }

  #api(port: number, signerUrl: string, run: string): ImageProcess {
    return this.start(
      "api",
      workload("Deployment", "api"),
      {
        ...this.infra(),
        SIGNER_URL: signerUrl,
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        JWT_SECRET,
        WEBHOOK_SECRET_KEY,
        ALLOW_PRIVATE_WEBHOOKS: "true",
        // No live price feed is reachable from here; test mode uses fixed prices.
        PRICE_SOURCES: "pyth,coinbase",
        PRICE_PYTH_URL: "http://127.0.0.1:9/pyth",
        PRICE_COINBASE_URL: "http://127.0.0.1:9/coinbase",
      },
      { "signer-client-cert": this.#clientCerts("api", run) },
    );
  }

  #settlement(health: number, apiUrl: string, signerUrl: string, run: string): ImageProcess {
    return this.start(
      "settlement",
      workload("Deployment", "settlement"),
      {
        ...this.infra(),
        SIGNER_URL: signerUrl,
        HEALTH_PORT: String(health),
        PUBLIC_BASE_URL: apiUrl,
        SETTLEMENT_APPROVER_SEED: generateApproverKey().seed,
        EXPIRY_POLL_MS: "200",
      },
      { "signer-client-cert": this.#clientCerts("settlement", run) },
    );
  }

  #notifier(health: number): ImageProcess {
    return this.start("notifier", workload("Deployment", "notifier"), {
      ...this.infra(),
      HEALTH_PORT: String(health),
      WEBHOOK_SECRET_KEY,
      ALLOW_PRIVATE_WEBHOOKS: "true",
    });
  }

  #suiWatcher(health: number, sui: SuiLocalnet): ImageProcess {
    return this.start("watcher", workload("Deployment", "watcher-sui"), {
      ...this.infra(),
      HEALTH_PORT: String(health),
      SUI_GRPC_URL: sui.url,
      SUI_NETWORK: "localnet",
      SUI_CHAIN_ID: sui.info().chainId,
      SUI_USDC_COIN_TYPE: sui.coinType("USDC"),
      SUI_USDT_COIN_TYPE: sui.coinType("USDT"),
    });
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    await Promise.all(this.#running.splice(0).map((p) => p.stop(signal)));
  }
}
