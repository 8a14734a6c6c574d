// Start-up checks of the TLS material that config parsing (environment only) cannot make:
// outside development no development CA may be trusted or have issued the server certificate.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  DEV_CA_ORGANIZATION,
  distinguishedNameHas,
  isDevelopmentCa,
  pemCertificates,
} from "./certificates.js";
import { ConfigError, type SignerConfig } from "./config.js";

function read(file: string, variable: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError([{ variable, problem: `cannot read ${file} (${code})` }]);
  }
}

export function checkTlsMaterial(config: Pick<SignerConfig, "env" | "tls" | "tlsCaVariable">): void {
  const { tls } = config;
  if (!tls) return;
  const variable = config.tlsCaVariable;
  const fail = (name: string, problem: string): never => {
    throw new ConfigError([{ variable: name, problem }]);
  };
  const cas = pemCertificates(read(tls.ca, variable));
  if (cas.length === 0) fail(variable, `${tls.ca} holds no certificate`);
  if (tls.crl && !read(tls.crl, "SIGNER_TLS_CRL").includes("-----BEGIN X509 CRL-----")) {
    fail("SIGNER_TLS_CRL", `${tls.crl} is not a PEM CRL`);
  }
  if (config.env === "development") return;
  const dev = cas.find(isDevelopmentCa);
  if (dev) {
    fail(
      variable,
      `${tls.ca} holds a development CA (${dev.subject.replaceAll("\n", ", ")}), refused outside development`,
    );
  }
  const serverPem = read(tls.cert, variable === "SIGNER_TLS_DIR" ? variable : "SIGNER_TLS_CERT");
  const server = new X509Certificate(serverPem);
  if (distinguishedNameHas(server.issuer, "O", DEV_CA_ORGANIZATION)) {
    fail(
      variable === "SIGNER_TLS_DIR" ? variable : "SIGNER_TLS_CERT",
      `${tls.cert} was issued by a development CA, refused outside development`,
    );
  }
}
