import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config.js";
import { writeDevCerts } from "./dev-certs.js";
import { checkTlsMaterial } from "./tls-check.js";

const tlsOf = (dir: string) => ({
  ca: join(dir, "ca.pem"),
  cert: join(dir, "server.pem"),
  key: join(dir, "server-key.pem"),
});
const problems = (f: () => void) => {
  try {
    f();
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.variable}: ${i.problem}`);
    throw error;
  }
};

describe("TLS material at start", () => {
  const dev = mkdtempSync(join(tmpdir(), "signer-tls-dev-"));
  writeDevCerts({ dir: dev });
  const prod = mkdtempSync(join(tmpdir(), "signer-tls-prod-"));
  writeDevCerts({ dir: prod, development: false });

  it("refuses a development CA outside development, naming the variable", () => {
    const check = (env: "production" | "development", tlsCaVariable: "SIGNER_TLS_DIR" | "SIGNER_TLS_CA") =>
      problems(() => checkTlsMaterial({ env, tls: tlsOf(dev), tlsCaVariable }));
    expect(check("production", "SIGNER_TLS_DIR")).toEqual([
      expect.stringMatching(/^SIGNER_TLS_DIR: .*development CA .*Gateway Development CA/),
    ]);
    expect(check("production", "SIGNER_TLS_CA")).toEqual([expect.stringMatching(/^SIGNER_TLS_CA: /)]);
    expect(check("development", "SIGNER_TLS_DIR")).toEqual([]);
  });

  it("accepts a production CA, and checks the CRL file", () => {
    const tls = tlsOf(prod);
    expect(
      problems(() => checkTlsMaterial({ env: "production", tls, tlsCaVariable: "SIGNER_TLS_DIR" })),
    ).toEqual([]);
    expect(
      problems(() =>
        checkTlsMaterial({
          env: "production",
          tls: { ...tls, crl: tls.ca },
          tlsCaVariable: "SIGNER_TLS_DIR",
        }),
      ),
    ).toEqual([expect.stringMatching(/^SIGNER_TLS_CRL: .*not a PEM CRL/)]);
    expect(
      problems(() =>
        checkTlsMaterial({
          env: "production",
          tls: { ...tls, ca: join(prod, "nope") },
          tlsCaVariable: "SIGNER_TLS_CA",
        }),
      ),
    ).toEqual([expect.stringMatching(/^SIGNER_TLS_CA: cannot read/)]);
  });
});
