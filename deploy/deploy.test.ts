import { readFileSync } from "node:fs";
import { CHAINS } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { renderManifests } from "./kubernetes/render.js";

const here = (file: string) => new URL(file, import.meta.url);

/** kubernetes-models ships a class per kind whose validate() checks the official schema. */
async function modelFor(apiVersion: string, kind: string) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const module = group
    ? `kubernetes-models/${group}/${version}/${kind}`
    : `kubernetes-models/${version}/${kind}`;
  const loaded = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = loaded[kind] ?? loaded.default;
  if (!Model) throw new Error(`no model for ${apiVersion} ${kind}`);
  return Model;
}

describe("Kubernetes manifests", () => {
  it("are generated from manifests.ts (run `pnpm --filter @gateway/deploy generate`)", () => {
    expect(readFileSync(here("./kubernetes/gateway.yaml"), "utf8")).toBe(renderManifests());
  });

  it("validate against the Kubernetes schemas, with probes, limits and a read-only root everywhere", async () => {
    const docs = parseAllDocuments(readFileSync(here("./kubernetes/gateway.yaml"), "utf8")).map((d) =>
      d.toJS(),
    );
    expect(docs.length).toBeGreaterThan(20);
    const kinds = new Set<string>();
    for (const doc of docs) {
      const Model = await modelFor(doc.apiVersion, doc.kind);
      expect(() => new Model(doc).validate(), `${doc.kind}/${doc.metadata.name}`).not.toThrow();
      kinds.add(doc.kind);
      if (doc.kind === "Deployment") {
        for (const container of doc.spec.template.spec.containers) {
          expect(container.readinessProbe, doc.metadata.name).toBeDefined();
          expect(container.livenessProbe, doc.metadata.name).toBeDefined();
          expect(container.resources.limits, doc.metadata.name).toBeDefined();
          expect(container.securityContext.readOnlyRootFilesystem, doc.metadata.name).toBe(true);
          expect(container.securityContext.runAsNonRoot, doc.metadata.name).toBe(true);
        }
      }
    }
    for (const kind of [
      "Deployment",
      "StatefulSet",
      "PodDisruptionBudget",
      "HorizontalPodAutoscaler",
      "NetworkPolicy",
      "Job",
    ]) {
      expect(kinds).toContain(kind);
    }
    const deployments = docs.filter((d) => d.kind === "Deployment").map((d) => d.metadata.name);
    expect(deployments.sort()).toEqual(
      ["api", "notifier", "settlement", "signer", ...CHAINS.map((chain) => `watcher-${chain}`)].sort(),
    );
    const policy = docs.find((d) => d.kind === "NetworkPolicy" && d.metadata.name === "signer");
    expect(policy.spec.egress).toEqual([]);
  });

  it("keeps the seed's passphrase out of the environment and apart from the sealed seed", () => {
    const docs = parseAllDocuments(readFileSync(here("./kubernetes/gateway.yaml"), "utf8")).map((d) =>
      d.toJS(),
    );
    const signer = docs.find((d) => d.kind === "Deployment" && d.metadata.name === "signer").spec.template
      .spec;
    const env = new Map(signer.containers[0].env.map((e: { name: string; value?: string }) => [e.name, e]));
    expect(env.has("SIGNER_SEED_PASSPHRASE")).toBe(false);
    expect(env.has("SIGNER_SEED_PASSPHRASE_FILE")).toBe(true);
    expect(env.has("SIGNER_TLS_CRL")).toBe(true);
    const secretOf = (mountedFile: string) => {
      const mount = signer.containers[0].volumeMounts.find((m: { mountPath: string }) =>
        mountedFile.startsWith(`${m.mountPath}/`),
      );
      return signer.volumes.find((v: { name: string }) => v.name === mount.name).secret.secretName;
    };
    const seedSecret = secretOf((env.get("SIGNER_SEALED_SEED_FILE") as { value: string }).value);
    const passphraseSecret = secretOf((env.get("SIGNER_SEED_PASSPHRASE_FILE") as { value: string }).value);
    expect(seedSecret).toBeTruthy();
    expect(passphraseSecret).toBeTruthy();
    expect(seedSecret).not.toBe(passphraseSecret);
  });

  it("gives each signer client its own role's certificate, and no workload a CA key", () => {
    const docs = parseAllDocuments(readFileSync(here("./kubernetes/gateway.yaml"), "utf8")).map((d) =>
      d.toJS(),
    );
    const workloads = docs.filter((d) => ["Deployment", "StatefulSet", "Job"].includes(d.kind));
    const clientSecrets = new Map<string, string>();
    for (const w of workloads) {
      for (const volume of w.spec.template.spec.volumes ?? []) {
        if (!volume.secret) continue;
        // Explicit items only: whatever else a Secret holds is never mounted.
        expect(volume.secret.items, `${w.metadata.name}/${volume.name}`).toBeDefined();
        for (const item of volume.secret.items) expect(item.key).not.toMatch(/ca[-_.]?key/i);
        if (volume.name === "signer-client-cert")
          clientSecrets.set(w.metadata.name, volume.secret.secretName);
      }
      for (const container of w.spec.template.spec.containers) {
        for (const e of container.env ?? []) expect(e.name).not.toMatch(/CA_KEY/);
      }
    }
    expect(Object.fromEntries(clientSecrets)).toEqual({
      api: "api-signer-client-tls",
      settlement: "settlement-signer-client-tls",
    });
  });
});

describe("Dockerfile", () => {
  it("copies every patch pnpm-workspace.yaml names before `pnpm fetch`, which applies them", () => {
    const dockerfile = readFileSync(here("./docker/Dockerfile"), "utf8");
    const beforeFetch = dockerfile.slice(0, dockerfile.indexOf("pnpm fetch"));
    const workspace = parse(readFileSync(here("../pnpm-workspace.yaml"), "utf8")) as {
      patchedDependencies?: Record<string, string>;
    };
    const patches = Object.values(workspace.patchedDependencies ?? {});
    expect(patches.length).toBeGreaterThan(0);
    for (const patch of patches) {
      const folder = patch.slice(0, patch.lastIndexOf("/"));
      expect(beforeFetch, patch).toContain(`COPY ${folder} ./${folder}`);
    }
  });
});

describe("compose file", () => {
  it("parses and runs every service read-only with the image built from the Dockerfile", () => {
    const compose = parse(readFileSync(here("./compose.yaml"), "utf8"), { merge: true });
    const services = compose.services as Record<
      string,
      {
        build?: { dockerfile: string; args?: { SERVICE?: string } };
        read_only?: boolean;
        image?: string;
        environment?: Record<string, string>;
      }
    >;
    const watchers = CHAINS.map((chain) => `watcher-${chain}`);
    for (const name of ["api", "settlement", "notifier", "signer", ...watchers, "migrate"]) {
      expect(services[name]?.build?.dockerfile, name).toBe("deploy/docker/Dockerfile");
      expect(services[name]?.read_only, name).toBe(true);
    }
    expect(services.api?.build?.args?.SERVICE).toBe("@gateway/api");
    // A service per chain's watcher, all from the one watcher image.
    for (const chain of CHAINS) {
      expect(services[`watcher-${chain}`]?.build?.args?.SERVICE, chain).toBe("@gateway/watcher");
      expect(services[`watcher-${chain}`]?.environment?.WATCHER_CHAIN, chain).toBe(chain);
    }
    expect(["nats-0", "nats-1", "nats-2", "postgres"].every((n) => services[n]?.image)).toBe(true);
  });

  it("mounts each service's own certificate folder, no CA key, and the passphrase as a secret file", () => {
    const compose = parse(readFileSync(here("./compose.yaml"), "utf8"), { merge: true });
    const services = compose.services as Record<
      string,
      { volumes?: string[]; environment?: Record<string, string>; secrets?: string[] }
    >;
    const certsOf = (name: string) =>
      (services[name]?.volumes ?? [])
        .filter((v) => v.endsWith(":/certs:ro"))
        .map((v) => v.slice(0, -":/certs:ro".length));
    expect(certsOf("api")).toEqual([expect.stringMatching(/\/api$/)]);
    expect(certsOf("settlement")).toEqual([expect.stringMatching(/\/settlement$/)]);
    expect(certsOf("signer")).toEqual([expect.stringMatching(/\/signer$/)]);
    for (const name of ["notifier", ...CHAINS.map((chain) => `watcher-${chain}`), "migrate"]) {
      expect(certsOf(name), name).toEqual([]);
      expect(services[name]?.environment?.SIGNER_CERT_FILE, name).toBeUndefined();
    }
    expect(readFileSync(here("./compose.yaml"), "utf8")).not.toMatch(/ca-key|ca\.key/);
    const signer = services.signer;
    expect(signer?.environment?.SIGNER_SEED_PASSPHRASE).toBeUndefined();
    expect(signer?.environment?.SIGNER_SEED_PASSPHRASE_FILE).toBe("/run/secrets/signer_seed_passphrase");
    expect(signer?.secrets).toEqual(["signer_seed_passphrase"]);
  });

  it("has a Grafana dashboard over the metrics the services export", () => {
    const dashboard = JSON.parse(readFileSync(here("./grafana/gateway-dashboard.json"), "utf8"));
    const exprs = JSON.stringify(dashboard.panels.map((p: { targets: unknown }) => p.targets));
    for (const metric of [
      "gateway_http_request_duration_seconds",
      "gateway_payments",
      "gateway_outbox_lag_seconds",
    ]) {
      expect(exprs).toContain(metric);
    }
  });
});
