import type { PeerCertificate } from "node:tls";
import { describe, expect, it } from "vitest";
import { DEV_CA_ORGANIZATION } from "./certificates.js";
import { callerFromCertificate, subjectAltNames } from "./identity.js";

const cert = (over: Partial<PeerCertificate>): PeerCertificate =>
  ({
    raw: Buffer.from("x"),
    subject: { CN: "client" },
    issuer: { O: "Gateway", CN: "gateway-signer-ca" },
    serialNumber: "01",
    fingerprint256: "AA:BB",
    ...over,
  }) as PeerCertificate;
const role = (value: string) => `URI:urn:gateway:signer-role:${value}`;

describe("caller identity", () => {
  it("reads the role from the one role URI in the subject alternative names", () => {
    const caller = callerFromCertificate(cert({ subjectaltname: `DNS:x, ${role("settlement")}` }), {
      production: true,
    });
    expect(caller).toMatchObject({ kind: "role", role: "settlement", certificate: { subject: "CN=client" } });
  });

  it("refuses no role, an unknown role, two roles and a missing certificate", () => {
    const production = { production: true };
    expect(callerFromCertificate(cert({}), production)).toMatchObject({ kind: "unknown" });
    expect(callerFromCertificate(cert({ subjectaltname: role("admin") }), production)).toMatchObject({
      kind: "unknown",
      problem: 'certificate names an unknown role "admin"',
    });
    expect(
      callerFromCertificate(cert({ subjectaltname: `${role("api")}, ${role("settlement")}` }), production),
    ).toMatchObject({ kind: "unknown", problem: expect.stringContaining("more than one role") });
    expect(callerFromCertificate(undefined, production)).toMatchObject({ kind: "unknown" });
    // A look-alike prefix is not a role.
    expect(
      callerFromCertificate(cert({ subjectaltname: "URI:urn:gateway:signer-role-x:api" }), production),
    ).toMatchObject({ kind: "unknown" });
  });

  it("refuses certificates of a development CA in production only", () => {
    const dev = cert({ subjectaltname: role("api"), issuer: { O: DEV_CA_ORGANIZATION, CN: "dev" } as never });
    expect(callerFromCertificate(dev, { production: true })).toMatchObject({
      kind: "unknown",
      problem: "certificate issued by a development CA",
    });
    expect(callerFromCertificate(dev, { production: false })).toMatchObject({ kind: "role", role: "api" });
  });

  it("splits Node's subjectaltname, including quoted values", () => {
    expect(subjectAltNames('DNS:a, IP Address:127.0.0.1, URI:"urn:x,y"')).toEqual([
      { type: "DNS", value: "a" },
      { type: "IP Address", value: "127.0.0.1" },
      { type: "URI", value: "urn:x,y" },
    ]);
  });
});
