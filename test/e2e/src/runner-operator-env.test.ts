// The runner honours the operator: every variable README.md documents, set in the environment of
// `npm start`, reaches the services in place of the runner's own value. The real runner with
// SMTP_URL set is exercised by local-cluster.test.ts; this checks every variable, one at a time.
import { readFileSync } from "node:fs";
import path from "node:path";
import { CHAINS } from "@gateway/contracts";
import { generateApproverKey } from "@gateway/signer-client";
import { describe, expect, it } from "vitest";
import type { DevSecrets } from "../../../scripts/cluster/dev-secrets.js";
import {
  DOCUMENTED_VARIABLES,
  type DocumentedVariable,
  operatorSettings,
  SERVICE_SCOPED,
  withOperatorSecrets,
} from "../../../scripts/cluster/operator-env.js";
import { type ClusterContext, clusterServices } from "../../../scripts/cluster/services.js";
import { ROOT } from "./processes.js";

/** The names in the first column of README.md's configuration table. */
function readmeVariables(): string[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const table = readme.slice(readme.indexOf("| variable | default | meaning |"));
  const rows = table.split("\n").slice(2);
  const end = rows.findIndex((row) => !row.startsWith("|"));
  return rows
    .slice(0, end)
    .flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

const devSecrets: DevSecrets = {
  JWT_SECRET: "runner-jwt-secret-runner-jwt-secret",
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString("base64"),
  SIGNER_SEED_MNEMONIC: "runner mnemonic",
  SETTLEMENT_APPROVER: { keyId: "settlement-dev", ...generateApproverKey() },
  API_APPROVER: { keyId: "api-dev", ...generateApproverKey() },
  WATCHER_ATTESTOR: { keyId: "watcher-dev", ...generateApproverKey() },
};

function cluster(env: Record<string, string>) {
  const operator = operatorSettings(env);
  const ctx: ClusterContext = {
    root: ROOT,
    dataDir: "/tmp/gw-operator-env",
    databaseUrl: operator.DATABASE_URL ?? "postgres://runner@127.0.0.1:1/gateway",
    natsUrl: operator.NATS_URL ?? "nats://127.0.0.1:2",
    secrets: withOperatorSecrets(devSecrets, operator),
    apiPort: Number(operator.PORT ?? 3000),
    publicBaseUrl: operator.PUBLIC_BASE_URL ?? "http://localhost:3000",
    certsDir: "/tmp/gw-operator-env/certs",
    portOffset: 0,
    operator,
  };
  const services = clusterServices(ctx);
  return { ctx, services, envOf: (name: string) => services.find((s) => s.name === name)!.env(ctx) };
}

/** A value the runner would never choose, valid where the variable has a format. */
function operatorValue(name: DocumentedVariable): string {
  if (name === "WATCHER_ATTESTATION_SEED") return "ab".repeat(32);
  if (name === "PORT") return "3999";
  return `operator-${name.toLowerCase()}`;
}

/** The services that read each variable: where the operator's value must arrive. */
const READERS: Partial<Record<DocumentedVariable, string[]>> = {
  SMTP_URL: ["api"],
  JWT_SECRET: ["api"],
  WEBHOOK_SECRET_KEY: ["api", "notifier"],
  ALLOW_PRIVATE_WEBHOOKS: ["api", "notifier"],
  SIGNER_URL: ["api", "settlement"],
  SIGNER_CA_FILE: ["api", "settlement"],
  SIGNER_CERT_FILE: ["api", "settlement"],
  SIGNER_KEY_FILE: ["api", "settlement"],
  WATCHER_ATTESTATION_KEY_ID: ["watcher-solana", "watcher-sui"],
  WATCHER_ATTESTATION_SEED: ["watcher-solana", "watcher-sui"],
  PORT: ["api"],
};
const SERVICES_OF_THE_API_SIDE = ["settlement", "watcher-solana", "watcher-sui", "notifier", "api"];

describe("the runner and the operator's environment", () => {
  it("knows every variable of README.md's table, and no other", () => {
    expect(readmeVariables()).toEqual([...DOCUMENTED_VARIABLES]);
  });

  it.each(DOCUMENTED_VARIABLES.filter((name) => name !== "HEALTH_PORT"))(
    "%s, when set, reaches every service that reads it in place of the runner's value",
    (name) => {
      const value = operatorValue(name);
      const { envOf } = cluster({ [name]: value });
      const readers = READERS[name] ?? SERVICE_SCOPED[name] ?? SERVICES_OF_THE_API_SIDE;
      for (const service of readers) expect(envOf(service)[name], `${service} ${name}`).toBe(value);
    },
  );

  it("runs each chain's watcher from the one watcher service, under the chain's name", () => {
    const { services, envOf } = cluster({});
    for (const chain of CHAINS) {
      expect(services.find((s) => s.name === `watcher-${chain}`)?.dir, chain).toBe("services/watcher");
      expect(envOf(`watcher-${chain}`).WATCHER_CHAIN).toBe(chain);
    }
  });

  it("HEALTH_PORT is each service's own: one value for all would collide", () => {
    const { envOf } = cluster({ HEALTH_PORT: "4999" });
    const ports = ["settlement", "watcher-solana", "watcher-sui", "notifier"].map(
      (s) => envOf(s).HEALTH_PORT,
    );
    expect(new Set(ports).size).toBe(4);
    expect(ports).not.toContain("4999");
  });

  it("without SMTP_URL, starts the mail catcher and sends the API's mail to it", () => {
    const { services, envOf } = cluster({});
    expect(services.find((s) => s.name === "mail-catcher")?.skipped).toBeUndefined();
    expect(envOf("api").SMTP_URL).toBe("smtp://127.0.0.1:1025");
    expect(envOf("mail-catcher").MAIL_CATCHER_SMTP_PORT).toBe("1025");
  });

  it("with SMTP_URL, starts no mail catcher", () => {
    const { services, envOf } = cluster({ SMTP_URL: "smtp://mail.example.test:2525" });
    expect(services.find((s) => s.name === "mail-catcher")?.skipped).toMatch(/SMTP_URL/);
    expect(envOf("api").SMTP_URL).toBe("smtp://mail.example.test:2525");
  });

  it("an empty value counts as unset, as the services read it", () => {
    const { services, envOf } = cluster({ SMTP_URL: "", JWT_SECRET: "" });
    expect(services.find((s) => s.name === "mail-catcher")?.skipped).toBeUndefined();
    expect(envOf("api").JWT_SECRET).toBe(devSecrets.JWT_SECRET);
  });

  it("the local signer trusts the watcher key the operator gave, under its key id", () => {
    const seed = "cd".repeat(32);
    const { ctx, envOf } = cluster({
      WATCHER_ATTESTATION_SEED: seed,
      WATCHER_ATTESTATION_KEY_ID: "ops-watcher",
    });
    const trusted = JSON.parse(envOf("signer").SIGNER_TRUSTED_APPROVERS!) as {
      keyId: string;
      approves: string;
      publicKey: string;
    }[];
    const transfer = trusted.filter((t) => t.approves === "transfer");
    expect(transfer).toEqual([
      { keyId: "ops-watcher", approves: "transfer", publicKey: ctx.secrets.WATCHER_ATTESTOR!.publicKey },
    ]);
    expect(ctx.secrets.WATCHER_ATTESTOR!.publicKey).not.toBe(devSecrets.WATCHER_ATTESTOR!.publicKey);
    expect(envOf("watcher-sui").WATCHER_ATTESTATION_KEY_ID).toBe("ops-watcher");
  });
});
