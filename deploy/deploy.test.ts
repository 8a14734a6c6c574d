import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CHAINS } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { withComposeWatchers } from "./compose-watchers.js";
import { renderManifests } from "./kubernetes/render.js";

const here = (file: string) => new URL(file, import.meta.url);
const require = createRequire(import.meta.url);

/**
 * The validator: kubernetes-models ships a class per kind whose validate() checks the JSON schema
 * generated from Kubernetes' own OpenAPI document of one release, compiled by ajv. Pinned, so the
 * release the manifests are held to is named here and changes only by a deliberate bump.
 */
const VALIDATOR = { package: "kubernetes-models", version: "5.1.0", kubernetes: "1.27.1" };

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

  it(`validate against the schemas of Kubernetes ${VALIDATOR.kubernetes}, with probes, limits and a read-only root everywhere`, async () => {
    const validator = path.dirname(require.resolve(`${VALIDATOR.package}/package.json`));
    expect(JSON.parse(readFileSync(path.join(validator, "package.json"), "utf8")).version).toBe(
      VALIDATOR.version,
    );
    // The package names the release its schemas come from.
    expect(readFileSync(path.join(validator, "README.md"), "utf8")).toContain(
      `kubernetes-${VALIDATOR.kubernetes}-green`,
    );
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

interface DocumentedWorkload {
  name: string;
  port: number | undefined;
  variablesFrom: string[];
  mounted: Map<string, string>;
  writable: string[];
}

/** The table "What each workload is given" of docs/operations.md, row by row. */
function documentedWorkloads(): DocumentedWorkload[] {
  const doc = readFileSync(here("../docs/operations.md"), "utf8");
  const start = doc.indexOf("### What each workload is given");
  const section = doc.slice(start, doc.indexOf("\n#", start + 1));
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split("|").slice(1, -1));
  const names = (cell = "") => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
  return rows.map(([workload, port, from, mounted, writable]) => ({
    name: names(workload)[0]?.replace("-<version>", "") ?? "",
    port: names(port)[0] === undefined ? undefined : Number(names(port)[0]),
    variablesFrom: names(from),
    mounted: new Map(
      [...(mounted ?? "").matchAll(/`([^`]+)`[^`]*? at `([^`]+)`/g)].map((m) => [m[2] ?? "", m[1] ?? ""]),
    ),
    writable: names(writable),
  }));
}

interface PodContainer {
  env?: {
    name: string;
    valueFrom?: { secretKeyRef?: { name: string }; configMapKeyRef?: { name: string } };
  }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodVolume {
  name: string;
  secret?: { secretName: string };
  configMap?: { name: string };
  emptyDir?: object;
  persistentVolumeClaim?: object;
}

/** CPU in millicores, memory in bytes, from a Kubernetes quantity. */
function quantity(value: string): number {
  const units: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  const [, number, unit] = /^([\d.]+)([A-Za-z]*)$/.exec(value) ?? [];
  return Number(number) * (unit ? (units[unit] ?? Number.NaN) : 1);
}

describe("the manifests hold what docs/operations.md says each workload is given", () => {
  const docs = parseAllDocuments(readFileSync(here("./kubernetes/gateway.yaml"), "utf8")).map((d) =>
    d.toJS(),
  );
  const workloads = docs.filter((d) => d.kind === "Deployment" || d.kind === "Job");
  const documented = documentedWorkloads();

  it("documents every workload, and every documented one exists", () => {
    const named = (w: { kind: string; metadata: { name: string } }) =>
      w.kind === "Job" ? w.metadata.name.replace(/-\d+-\d+-\d+$/, "") : w.metadata.name;
    expect(documented.map((d) => d.name).sort()).toEqual(workloads.map(named).sort());
  });

  for (const row of documentedWorkloads()) {
    it(`${row.name}: probes, security context, resources, secrets and mounts`, () => {
      const w = workloads.find(
        (d) => d.metadata.name === row.name || d.metadata.name.startsWith(`${row.name}-`),
      );
      const pod = w.spec.template.spec as { containers: PodContainer[]; volumes: PodVolume[] };
      const [container] = pod.containers;
      if (!container) throw new Error(`${row.name} has no container`);
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      });
      if (row.port !== undefined) {
        const portName = (name: string) => container.ports?.find((p) => p.name === name)?.containerPort;
        expect(container.readinessProbe?.httpGet.path).toBe("/readyz");
        expect(container.livenessProbe?.httpGet.path).toBe("/healthz");
        expect(portName(container.readinessProbe?.httpGet.port ?? "")).toBe(row.port);
        expect(portName(container.livenessProbe?.httpGet.port ?? "")).toBe(row.port);
        for (const resource of ["cpu", "memory"]) {
          const requested = quantity(container.resources?.requests?.[resource] ?? "");
          const limit = quantity(container.resources?.limits?.[resource] ?? "");
          expect(requested, resource).toBeGreaterThan(0);
          expect(requested, resource).toBeLessThanOrEqual(limit);
        }
      }
      const from = new Set(
        (container.env ?? []).flatMap((e) => {
          const ref = e.valueFrom?.secretKeyRef?.name ?? e.valueFrom?.configMapKeyRef?.name;
          return ref ? [ref] : [];
        }),
      );
      expect([...from].sort()).toEqual([...row.variablesFrom].sort());
      const volumeOf = (name: string) => pod.volumes.find((v) => v.name === name);
      const mounted = new Map<string, string>();
      const writable: string[] = [];
      for (const mount of container.volumeMounts) {
        const volume = volumeOf(mount.name);
        const source = volume?.secret?.secretName ?? volume?.configMap?.name;
        if (source) {
          mounted.set(mount.mountPath, source);
          expect(mount.readOnly, mount.mountPath).toBe(true);
        } else {
          expect(volume?.emptyDir ?? volume?.persistentVolumeClaim, mount.mountPath).toBeDefined();
          writable.push(mount.mountPath);
        }
      }
      expect(mounted).toEqual(row.mounted);
      expect(writable.sort()).toEqual([...row.writable].sort());
    });
  }
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
  it("has its watchers generated from the chains' configuration (run `pnpm --filter @gateway/deploy generate`)", () => {
    const compose = readFileSync(here("./compose.yaml"), "utf8");
    expect(compose).toBe(withComposeWatchers(compose));
  });

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
