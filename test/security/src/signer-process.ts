import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@gateway/local-infra";
import { type DevCertFiles, type Role, writeCrl, writeDevCerts } from "@gateway/signer";
import { createSignerClient, type SignerClient } from "@gateway/signer-client";
import { deriveEach, rememberAddresses } from "@gateway/signer-harness";

const SIGNER_DIR = path.resolve(import.meta.dirname, "../../../signer");

export { freePort };

export interface SignerProcess {
  child: ChildProcess;
  /** The API and settlement together: each RPC through the certificate of the role that makes it. */
  client: SignerClient;
  /** A client presenting the certificate of one role. */
  connect(role: Role): SignerClient;
  url: string;
  certs: DevCertFiles;
  auditPath: string;
  /** With `crl: true`: the CRL the signer reads (starts empty; rewrite it and send SIGHUP). */
  crlFile: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The signer as it is deployed: its own process from src/main.ts, gRPC over mutual TLS with
 * certificates from writeDevCerts, the seed from the environment (development), and the callers
 * reach it only through the real client.
 */
export async function startSignerProcess(
  env: Record<string, string>,
  /** `productionCa`: certificates from a CA without the development mark (for SIGNER_ENV=production). */
  options: { productionCa?: boolean; crl?: boolean } = {},
): Promise<SignerProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), "gw-sec-signer-"));
  const certs = writeDevCerts({ dir: path.join(dir, "certs"), development: !options.productionCa });
  const crlFile = path.join(dir, "crl.pem");
  if (options.crl) writeCrl({ ca: { cert: certs.ca, key: certs.caKey }, revoked: [], out: crlFile });
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
      ...(options.crl ? { SIGNER_TLS_CRL: crlFile } : {}),
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
  const connect = (role: Role) =>
    createSignerClient({
      baseUrl: url,
      tls: {
        ca: readFileSync(certs.ca),
        cert: readFileSync(certs.clients[role].cert),
        key: readFileSync(certs.clients[role].key),
      },
    });
  const api = connect("api");
  const settlement = connect("settlement");
  const derive = rememberAddresses((request) => api.deriveDepositAddress(request));
  const client: SignerClient = {
    deriveDepositAddress: derive,
    deriveDepositAddresses: deriveEach(derive),
    getServiceAddresses: () => settlement.getServiceAddresses(),
    sign: (input, options) => settlement.sign(input, options),
    signBatch: (inputs, options) => settlement.signBatch(inputs, options),
    getAuditHead: () => settlement.getAuditHead(),
    getAuditEntry: (seq) => settlement.getAuditEntry(seq),
    requestPayoutDestination: (request) => api.requestPayoutDestination(request),
    cancelPayoutDestination: (request) => api.cancelPayoutDestination(request),
    listPayoutDestinations: (merchantId) => api.listPayoutDestinations(merchantId),
    close() {
      api.close();
      settlement.close();
    },
  };
  return {
    child,
    client,
    connect,
    url,
    certs,
    auditPath: path.join(dir, "audit.jsonl"),
    crlFile,
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
