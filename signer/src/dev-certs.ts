// Development certificates for mTLS, made with the openssl binary: a CA, a server
// certificate for localhost, and a client certificate. Never for production use.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DevCertsOptions {
  dir: string;
  /** Extra DNS names for the server certificate (localhost and 127.0.0.1 are always in). */
  hostnames?: string[];
  days?: number;
}

export interface DevCertFiles {
  ca: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

function serial(): string {
  return `0x${randomBytes(16).toString("hex")}`;
}

export function writeDevCerts({ dir, hostnames = [], days = 825 }: DevCertsOptions): DevCertFiles {
  mkdirSync(dir, { recursive: true });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca-key.pem",
      "-out",
      "ca.pem",
      "-days",
      String(days),
      "-subj",
      "/CN=gateway-signer-dev-ca",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    dir,
  );
  const names = ["DNS:localhost", "IP:127.0.0.1", "IP:::1", ...hostnames.map((h) => `DNS:${h}`)];
  const issue = (name: string, cn: string, extensions: string) => {
    const extFile = join(dir, `${name}.ext`);
    writeFileSync(extFile, extensions);
    openssl(
      ["req", "-new", ...ec, "-keyout", `${name}-key.pem`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`],
      dir,
    );
    openssl(
      [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-set_serial",
        serial(),
        "-out",
        `${name}.pem`,
        "-days",
        String(days),
        "-extfile",
        extFile,
      ],
      dir,
    );
    rmSync(join(dir, `${name}.csr`));
    rmSync(extFile);
  };
  issue(
    "server",
    "gateway-signer",
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${names.join(",")}\n`,
  );
  issue(
    "client",
    "gateway-signer-client",
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
  );
  for (const key of ["ca-key.pem", "server-key.pem", "client-key.pem"]) chmodSync(join(dir, key), 0o600);
  return {
    ca: join(dir, "ca.pem"),
    caKey: join(dir, "ca-key.pem"),
    serverCert: join(dir, "server.pem"),
    serverKey: join(dir, "server-key.pem"),
    clientCert: join(dir, "client.pem"),
    clientKey: join(dir, "client-key.pem"),
  };
}
