// Which caller is on the other end of a connection: the role named by its client
// certificate (one SAN URI `urn:gateway:signer-role:<role>`), or why it has none.
import type { PeerCertificate } from "node:tls";
import { isRole, type Role } from "./access.js";
import { DEV_CA_ORGANIZATION, ROLE_URI_PREFIX } from "./certificates.js";

/** What the audit log records about a certificate; never the key, only public facts. */
export interface CertificateId {
  subject: string;
  serial: string;
  sha256: string;
}

export type Caller =
  | { kind: "role"; role: Role; certificate: CertificateId }
  /** TLS accepted the certificate (our CA, not revoked) but it names no usable role. */
  | { kind: "unknown"; problem: string; certificate?: CertificateId }
  /** Plaintext is only possible with SIGNER_ENV=development: the caller may act as any role. */
  | { kind: "development" };

/** Splits Node's `subjectaltname` ("DNS:a, URI:b"); values with special characters are JSON-quoted. */
export function subjectAltNames(text: string | undefined): { type: string; value: string }[] {
  if (!text) return [];
  const entries: { type: string; value: string }[] = [];
  const pattern = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g;
  for (const match of text.matchAll(pattern)) {
    const [, type = "", raw = ""] = match;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        value = raw;
      }
    }
    entries.push({ type: type.trim(), value });
  }
  return entries;
}

function certificateId(cert: PeerCertificate): CertificateId {
  const subject = Object.entries(cert.subject ?? {})
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("+") : v}`)
    .join(", ");
  return { subject, serial: cert.serialNumber, sha256: cert.fingerprint256 };
}

/**
 * The caller behind a verified peer certificate. `production` also refuses certificates that a
 * development CA issued (the signer does not start with one, so this is a second lock).
 */
export function callerFromCertificate(
  cert: PeerCertificate | undefined,
  options: { production: boolean },
): Caller {
  if (!cert?.raw) return { kind: "unknown", problem: "no client certificate" };
  const certificate = certificateId(cert);
  const issuerOrg = cert.issuer?.O;
  const issuerOrgs = Array.isArray(issuerOrg) ? issuerOrg : issuerOrg ? [issuerOrg] : [];
  if (options.production && issuerOrgs.includes(DEV_CA_ORGANIZATION)) {
    return { kind: "unknown", problem: "certificate issued by a development CA", certificate };
  }
  const roles = subjectAltNames(cert.subjectaltname)
    .filter((san) => san.type === "URI" && san.value.startsWith(ROLE_URI_PREFIX))
    .map((san) => san.value.slice(ROLE_URI_PREFIX.length));
  if (roles.length === 0) {
    return {
      kind: "unknown",
      problem: `certificate names no role (no ${ROLE_URI_PREFIX}<role> URI)`,
      certificate,
    };
  }
  if (roles.length > 1) {
    return {
      kind: "unknown",
      problem: `certificate names more than one role (${roles.join(", ")})`,
      certificate,
    };
  }
  const [role = ""] = roles;
  if (!isRole(role))
    return { kind: "unknown", problem: `certificate names an unknown role "${role}"`, certificate };
  return { kind: "role", role, certificate };
}

/** How the audit log and logs name a caller. */
export function describeCaller(caller: Caller): Record<string, unknown> {
  switch (caller.kind) {
    case "role":
      return { role: caller.role, certificate: caller.certificate };
    case "unknown":
      return caller.certificate ? { certificate: caller.certificate } : {};
    case "development":
      return { transport: "plaintext-development" };
  }
}
