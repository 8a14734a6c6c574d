// Development certificates for mTLS: a development CA (marked as such, so a production
// signer refuses it), a server certificate for localhost, and one client certificate per
// role. Never for production use.
import { join } from "node:path";
import { ROLES, type Role } from "./access.js";
import { type CertFiles, createCa, issueCertificate } from "./certificates.js";

export interface DevCertsOptions {
  dir: string;
  /** Extra DNS names for the server certificate (localhost and 127.0.0.1 are always in). */
  hostnames?: string[];
  days?: number;
  /** false: a CA without the development mark, for tests of production mode. */
  development?: boolean;
}

export interface DevCertFiles {
  ca: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  /** `<role>.pem` and `<role>-key.pem`: each service gets the certificate of its role. */
  clients: Record<Role, CertFiles>;
}

export function writeDevCerts({
  dir,
  hostnames = [],
  days = 825,
  development = true,
}: DevCertsOptions): DevCertFiles {
  const ca = createCa({ dir, development, days });
  const server = issueCertificate({
    ca,
    dir,
    name: "server",
    usage: { kind: "server", hostnames },
    days,
  });
  const clients = Object.fromEntries(
    ROLES.map((role) => [
      role,
      issueCertificate({ ca, dir, name: role, usage: { kind: "client", role }, days }),
    ]),
  ) as Record<Role, CertFiles>;
  return {
    ca: ca.cert,
    caKey: ca.key,
    serverCert: server.cert,
    serverKey: server.key,
    clients,
  };
}

/** The SIGNER_CA_FILE / SIGNER_CERT_FILE / SIGNER_KEY_FILE of a service with this role. */
export function devClientFiles(dir: string, role: Role): { ca: string; cert: string; key: string } {
  return { ca: join(dir, "ca.pem"), cert: join(dir, `${role}.pem`), key: join(dir, `${role}-key.pem`) };
}
