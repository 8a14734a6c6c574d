// The signer's mTLS certificates, made with the openssl binary: a CA, the signer's server
// certificate, one client certificate per role, and revocation lists. Only the step that
// issues sees the CA key; services receive their own certificate and the CA certificate.
import { execFileSync } from "node:child_process";
import { randomBytes, X509Certificate } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Role } from "./access.js";

/**
 * The organization of every CA that `dev-certs` makes. A signer outside development refuses
 * to start with such a CA and refuses client certificates it issued.
 */
export const DEV_CA_ORGANIZATION = "Gateway Development CA";

/** A client certificate names its role in one SAN URI: `urn:gateway:signer-role:<role>`. */
export const ROLE_URI_PREFIX = "urn:gateway:signer-role:";

export interface CaFiles {
  cert: string;
  key: string;
}

export interface CertFiles {
  cert: string;
  key: string;
}

function openssl(args: string[], cwd: string): string {
  return execFileSync("openssl", args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** Writes `ca.pem` and `ca-key.pem` (0600) into dir. */
export function createCa(options: {
  dir: string;
  /** Development CAs carry O=Gateway Development CA; production refuses them. */
  development: boolean;
  commonName?: string;
  days?: number;
}): CaFiles {
  const { dir, development } = options;
  mkdirSync(dir, { recursive: true });
  const cn = options.commonName ?? (development ? "gateway-signer-dev-ca" : "gateway-signer-ca");
  const subject = development ? `/O=${DEV_CA_ORGANIZATION}/CN=${cn}` : `/O=Gateway/CN=${cn}`;
  openssl(
    [
      "req",
      "-x509",
      ...EC,
      "-keyout",
      "ca-key.pem",
      "-out",
      "ca.pem",
      "-days",
      String(options.days ?? (development ? 825 : 3650)),
      "-subj",
      subject,
      "-addext",
      "basicConstraints=critical,CA:TRUE,pathlen:0",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    dir,
  );
  chmodSync(join(dir, "ca-key.pem"), 0o600);
  return { cert: join(dir, "ca.pem"), key: join(dir, "ca-key.pem") };
}

export type CertificateUsage =
  | { kind: "server"; hostnames: string[] }
  /** A client without a role is only useful to prove that the signer refuses it. */
  | { kind: "client"; role: Role | undefined };

/** Issues `<name>.pem` and `<name>-key.pem` (0600), or the two names given, into dir. */
export function issueCertificate(options: {
  ca: CaFiles;
  dir: string;
  name: string | { cert: string; key: string };
  usage: CertificateUsage;
  commonName?: string;
  days: number;
}): CertFiles {
  const { ca, dir, name, usage, days } = options;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "signer-issue-"));
  try {
    const san =
      usage.kind === "server"
        ? ["DNS:localhost", "IP:127.0.0.1", "IP:::1", ...usage.hostnames.map((h) => `DNS:${h}`)]
        : usage.role
          ? [`URI:${ROLE_URI_PREFIX}${usage.role}`]
          : [];
    const extensions = [
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      `extendedKeyUsage=${usage.kind === "server" ? "serverAuth" : "clientAuth"}`,
      ...(san.length ? [`subjectAltName=${san.join(",")}`] : []),
    ];
    writeFileSync(join(work, "ext"), `${extensions.join("\n")}\n`);
    const cn =
      options.commonName ??
      (usage.kind === "server" ? "gateway-signer" : `gateway-signer-client-${usage.role ?? "none"}`);
    const key = join(dir, typeof name === "string" ? `${name}-key.pem` : name.key);
    const cert = join(dir, typeof name === "string" ? `${name}.pem` : name.cert);
    openssl(["req", "-new", ...EC, "-keyout", key, "-out", join(work, "csr"), "-subj", `/CN=${cn}`], dir);
    chmodSync(key, 0o600);
    openssl(
      [
        "x509",
        "-req",
        "-in",
        join(work, "csr"),
        "-CA",
        ca.cert,
        "-CAkey",
        ca.key,
        "-set_serial",
        `0x${randomBytes(16).toString("hex")}`,
        "-out",
        cert,
        "-days",
        String(days),
        "-extfile",
        join(work, "ext"),
      ],
      dir,
    );
    return { cert, key };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Writes a PEM CRL signed by the CA that revokes the given certificates. Stateless: pass every
 * certificate revoked so far (an operator keeps them, e.g. in the CA's `revoked/` folder).
 */
export function writeCrl(options: { ca: CaFiles; revoked: string[]; out: string; days?: number }): string {
  const work = mkdtempSync(join(tmpdir(), "signer-crl-"));
  try {
    writeFileSync(join(work, "index.txt"), "");
    writeFileSync(join(work, "crlnumber"), `${Date.now().toString(16).padStart(16, "0")}\n`);
    const config = [
      "[ca]",
      "default_ca = signer",
      "[signer]",
      `database = ${join(work, "index.txt")}`,
      `crlnumber = ${join(work, "crlnumber")}`,
      `certificate = ${options.ca.cert}`,
      `private_key = ${options.ca.key}`,
      "default_md = sha256",
      `default_crl_days = ${options.days ?? 30}`,
      "",
    ].join("\n");
    writeFileSync(join(work, "openssl.cnf"), config);
    for (const cert of options.revoked) {
      openssl(["ca", "-config", "openssl.cnf", "-revoke", cert], work);
    }
    openssl(["ca", "-config", "openssl.cnf", "-gencrl", "-out", options.out], work);
    return options.out;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every certificate of a PEM bundle (a CA file may hold several). */
export function pemCertificates(pem: string | Buffer): X509Certificate[] {
  const text = pem.toString();
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

/** X509Certificate.subject/issuer are "K=V" lines. */
export function distinguishedNameHas(name: string, key: string, value: string): boolean {
  return name.split("\n").some((line) => line === `${key}=${value}`);
}

export function isDevelopmentCa(cert: X509Certificate): boolean {
  return distinguishedNameHas(cert.subject, "O", DEV_CA_ORGANIZATION);
}

/** Reads a CA bundle and returns the development CAs in it (by subject). */
export function developmentCasIn(caFile: string): string[] {
  return pemCertificates(readFileSync(caFile))
    .filter(isDevelopmentCa)
    .map((c) => c.subject.replaceAll("\n", ", "));
}
