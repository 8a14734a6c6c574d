import { readFileSync } from "node:fs";
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
    expect(deployments.sort()).toEqual([
      "api",
      "notifier",
      "settlement",
      "signer",
      "watcher-solana",
      "watcher-sui",
    ]);
    const policy = docs.find((d) => d.kind === "NetworkPolicy" && d.metadata.name === "signer");
    expect(policy.spec.egress).toEqual([]);
  });
});

describe("compose file", () => {
  it("parses and runs every service read-only with the image built from the Dockerfile", () => {
    const compose = parse(readFileSync(here("./compose.yaml"), "utf8"), { merge: true });
    const services = compose.services as Record<
      string,
      { build?: { dockerfile: string; args?: { SERVICE?: string } }; read_only?: boolean; image?: string }
    >;
    for (const name of [
      "api",
      "settlement",
      "notifier",
      "signer",
      "watcher-solana",
      "watcher-sui",
      "migrate",
    ]) {
      expect(services[name]?.build?.dockerfile, name).toBe("deploy/docker/Dockerfile");
      expect(services[name]?.read_only, name).toBe(true);
    }
    expect(services.api?.build?.args?.SERVICE).toBe("@gateway/api");
    expect(["nats-0", "nats-1", "nats-2", "postgres"].every((n) => services[n]?.image)).toBe(true);
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
