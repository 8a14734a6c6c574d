import { describe, expect, it } from "vitest";
import { ConfigError, parseSignerConfig } from "./config.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const problems = (env: Record<string, string>) => {
  try {
    parseSignerConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((i) => i.variable);
  }
};

describe("signer config", () => {
  it("keeps the payout policy: a day's delay live, none in test, 15-minute approvals, limits", () => {
    const dev = { SIGNER_ENV: "development", SIGNER_SEED_MNEMONIC: MNEMONIC };
    expect(parseSignerConfig(dev).payoutPolicy).toEqual({
      destinationDelaySeconds: { live: 86_400, test: 0 },
      approvalMaxTtlSeconds: 900,
      limits: {
        perMerchant: { count: 20, amount: 100_000_000_000n },
        total: { count: 1_000, amount: 1_000_000_000_000n },
      },
    });
    const set = parseSignerConfig({
      ...dev,
      SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS: "3600",
      SIGNER_PAYOUT_LIMITS: '{"perMerchant":{"count":5,"amount":"7"},"total":{"count":9,"amount":11}}',
    }).payoutPolicy;
    expect(set.destinationDelaySeconds.live).toBe(3600);
    expect(set.limits).toEqual({ perMerchant: { count: 5, amount: 7n }, total: { count: 9, amount: 11n } });
    expect(problems({ ...dev, SIGNER_PAYOUT_LIMITS: '{"perMerchant":{"count":5}}' })).toEqual([
      "SIGNER_PAYOUT_LIMITS",
    ]);
    expect(problems({ ...dev, SIGNER_APPROVAL_MAX_TTL_SECONDS: "0" })).toEqual([
      "SIGNER_APPROVAL_MAX_TTL_SECONDS",
    ]);
  });

  it("runs in development with a mnemonic and no TLS", () => {
    const config = parseSignerConfig({ SIGNER_ENV: "development", SIGNER_SEED_MNEMONIC: MNEMONIC });
    expect(config.port).toBe(7443);
    expect(config.tls).toBeUndefined();
    expect(config.seed).toEqual({ kind: "mnemonic", mnemonic: MNEMONIC });
  });

  it("outside development requires mTLS, a sealed seed and an audit log path", () => {
    expect(problems({})).toEqual(
      expect.arrayContaining(["SIGNER_TLS_DIR", "SIGNER_SEALED_SEED_FILE", "SIGNER_AUDIT_LOG"]),
    );
    expect(
      problems({ SIGNER_SEED_MNEMONIC: MNEMONIC, SIGNER_TLS_DIR: "/tls", SIGNER_AUDIT_LOG: "/a" }),
    ).toContain("SIGNER_SEED_MNEMONIC");
    expect(
      problems({ SIGNER_SEALED_SEED_FILE: "/seed", SIGNER_TLS_DIR: "/tls", SIGNER_AUDIT_LOG: "/a" }),
    ).toEqual(["SIGNER_SEED_PASSPHRASE_FILE"]);
  });

  it("takes the passphrase from a file or an unseal command outside development, never the environment", () => {
    const prod = { SIGNER_SEALED_SEED_FILE: "/seed", SIGNER_TLS_DIR: "/tls", SIGNER_AUDIT_LOG: "/a" };
    expect(problems({ ...prod, SIGNER_SEED_PASSPHRASE: "a long enough passphrase" })).toEqual([
      "SIGNER_SEED_PASSPHRASE",
    ]);
    expect(parseSignerConfig({ ...prod, SIGNER_SEED_PASSPHRASE_FILE: "/run/pass" }).seed).toEqual({
      kind: "sealed",
      file: "/seed",
      passphrase: { kind: "file", path: "/run/pass" },
    });
    expect(parseSignerConfig({ ...prod, SIGNER_SEED_UNSEAL_COMMAND: "/bin/unseal --seed gw" }).seed).toEqual({
      kind: "sealed",
      file: "/seed",
      passphrase: { kind: "command", argv: ["/bin/unseal", "--seed", "gw"], timeoutMs: 30_000 },
    });
    const json = parseSignerConfig({ ...prod, SIGNER_SEED_UNSEAL_COMMAND: '["/bin/un seal","a b"]' });
    expect(json.seed).toMatchObject({ passphrase: { argv: ["/bin/un seal", "a b"] } });
    expect(problems({ ...prod, SIGNER_SEED_UNSEAL_COMMAND: "[1]" })).toEqual(["SIGNER_SEED_UNSEAL_COMMAND"]);
    expect(
      problems({ ...prod, SIGNER_SEED_PASSPHRASE_FILE: "/p", SIGNER_SEED_UNSEAL_COMMAND: "/bin/unseal" }),
    ).toEqual(["SIGNER_SEED_PASSPHRASE_FILE"]);
    // Development keeps the convenience of the environment.
    const dev = parseSignerConfig({
      SIGNER_ENV: "development",
      SIGNER_SEALED_SEED_FILE: "/seed",
      SIGNER_SEED_PASSPHRASE: "a long enough passphrase",
    });
    expect(dev.seed).toMatchObject({ passphrase: { kind: "value" } });
  });

  it("takes a CRL only with mTLS, and reloads TLS files every minute by default", () => {
    const dev = { SIGNER_ENV: "development", SIGNER_SEED_MNEMONIC: MNEMONIC };
    expect(problems({ ...dev, SIGNER_TLS_CRL: "/crl.pem" })).toEqual(["SIGNER_TLS_CRL"]);
    const config = parseSignerConfig({ ...dev, SIGNER_TLS_DIR: "/tls", SIGNER_TLS_CRL: "/crl.pem" });
    expect(config.tls).toEqual({
      ca: "/tls/ca.pem",
      cert: "/tls/server.pem",
      key: "/tls/server-key.pem",
      crl: "/crl.pem",
    });
    expect(config.tlsReloadSeconds).toBe(60);
    expect(config.tlsCaVariable).toBe("SIGNER_TLS_DIR");
  });

  it("names the variable of a bad value", () => {
    const dev = { SIGNER_ENV: "development", SIGNER_SEED_MNEMONIC: MNEMONIC };
    expect(problems({ ...dev, SIGNER_PORT: "seventy" })).toEqual(["SIGNER_PORT"]);
    expect(problems({ ...dev, SIGNER_TRUSTED_APPROVERS: "[{}]" })).toEqual(["SIGNER_TRUSTED_APPROVERS"]);
    expect(problems({ ...dev, SIGNER_CAPS: '{"eth:x":{"perIntent":"1","perDay":"1"}}' })).toEqual([
      "SIGNER_CAPS",
    ]);
    expect(problems({ ...dev, SIGNER_TLS_CA: "/ca.pem" })).toEqual(["SIGNER_TLS_CA"]);
  });

  it("parses approvers and caps, spelling Sui coin types in full", () => {
    const config = parseSignerConfig({
      SIGNER_ENV: "development",
      SIGNER_SEED_MNEMONIC: MNEMONIC,
      SIGNER_TRUSTED_APPROVERS: JSON.stringify([
        { keyId: "api-1", approves: "payout", publicKey: "ab".repeat(32) },
      ]),
      SIGNER_CAPS: JSON.stringify({ "sui:0x2::sui::SUI": { perIntent: "10", perDay: 100 } }),
    });
    expect(config.trustedApprovers[0]?.publicKey).toHaveLength(32);
    expect(config.caps.get(`sui:0x${"0".repeat(63)}2::sui::SUI`)).toEqual({ perIntent: 10n, perDay: 100n });
  });
});
