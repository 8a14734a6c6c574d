// The Kubernetes manifests, written as code so every Deployment gets the same probes, resources,
// security context and disruption budget. `pnpm --filter @gateway/deploy generate` writes
// kubernetes/gateway.yaml; a test checks that file is current and valid against the schemas.
import { CHAINS } from "@gateway/contracts";
// The types of the release the manifests are validated against (deploy.test.ts): an unknown or
// misspelt field fails type checking before any test runs.
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import type { IStatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import type { IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import type { IJob } from "kubernetes-models/batch/v1/Job";
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { INamespace } from "kubernetes-models/v1/Namespace";
import type { IPersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import type { ISecurityContext } from "kubernetes-models/v1/SecurityContext";
import type { IService } from "kubernetes-models/v1/Service";
import type { IVolume } from "kubernetes-models/v1/Volume";
import type { IVolumeMount } from "kubernetes-models/v1/VolumeMount";
import { chainWatcher, settlementChainSecrets } from "../chain-services.js";

type KubernetesObject =
  | IConfigMap
  | IDeployment
  | IHorizontalPodAutoscaler
  | IJob
  | INamespace
  | INetworkPolicy
  | IPersistentVolumeClaim
  | IPodDisruptionBudget
  | IService
  | IStatefulSet;

const NAMESPACE = "gateway";
const IMAGE = (service: string) => `registry.example.com/gateway/${service}:1.0.0`;
const labels = (app: string) => ({ "app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "gateway" });

interface ServiceSpec {
  name: string;
  /** The image's name, when it is not the Deployment's (every chain's watcher runs one image). */
  image?: string;
  replicas: number;
  port: number;
  /** Whether the port serves the merchant API (public, PORT) or only health/metrics (HEALTH_PORT). */
  public?: boolean;
  /** Beyond the common variables, the signer client's and the port's. */
  env?: Record<string, string>;
  secretEnv: string[];
  cpu: [string, string];
  /** A signer client: its variables, and the Secret with its certificate mounted. */
  talksToSigner?: boolean;
}

/** Requested and limit: every service holds its working set well within these. */
const SERVICE_MEMORY = ["256Mi", "512Mi"] as const;

const infraSecrets = ["DATABASE_URL"];
/** Secrets a service runs without (the feature they enable is then off, and says so in its log). */
const OPTIONAL_SECRETS = new Set([
  "SMTP_URL",
  "API_APPROVER_SEED",
  ...CHAINS.flatMap((chain) => chainWatcher(chain).secrets)
    .filter((secret) => secret.optional)
    .map((secret) => secret.name),
]);
const common = {
  NATS_URL: "nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222",
  BUS_STREAM_REPLICAS: "3",
  LOG_LEVEL: "info",
};
/**
 * A signer client mounts the Secret `<service>-signer-client-tls` issued for its role
 * (`signer cli issue-cert <role> OUT --ca-dir …` on the issuing host: tls.crt names the role
 * in a SAN URI, tls.key, ca.crt). No workload ever mounts the CA key.
 */
const signerEnv = {
  SIGNER_URL: "https://signer:7443",
  SIGNER_CA_FILE: "/certs/ca.crt",
  SIGNER_CERT_FILE: "/certs/tls.crt",
  SIGNER_KEY_FILE: "/certs/tls.key",
};
/** Only these keys of a TLS Secret are mounted, so a CA key put there by mistake stays out. */
const TLS_ITEMS = ["ca.crt", "tls.crt", "tls.key"].map((key) => ({ key, path: key }));

const SERVICES: ServiceSpec[] = [
  {
    name: "api",
    replicas: 3,
    port: 3000,
    public: true,
    env: { PUBLIC_BASE_URL: "https://pay.example.com", TRUSTED_PROXIES: "10.0.0.10" },
    secretEnv: [...infraSecrets, "JWT_SECRET", "WEBHOOK_SECRET_KEY", "SMTP_URL", "API_APPROVER_SEED"],
    cpu: ["250m", "1"],
    talksToSigner: true,
  },
  {
    name: "settlement",
    replicas: 2,
    port: 3101,
    env: { PUBLIC_BASE_URL: "https://pay.example.com" },
    secretEnv: [
      ...infraSecrets,
      "SETTLEMENT_APPROVER_SEED",
      ...settlementChainSecrets().map((secret) => secret.name),
    ],
    cpu: ["200m", "1"],
    talksToSigner: true,
  },
  {
    name: "notifier",
    replicas: 2,
    port: 3102,
    secretEnv: [...infraSecrets, "WEBHOOK_SECRET_KEY"],
    cpu: ["200m", "1"],
  },
  // Each chain's watcher: a Deployment per chain, scaled on its own, all from the watcher image
  // (WATCHER_CHAIN picks the chain).
  ...CHAINS.map(
    (chain): ServiceSpec => ({
      name: `watcher-${chain}`,
      image: "watcher",
      replicas: 2,
      port: chainWatcher(chain).port,
      env: { WATCHER_CHAIN: chain },
      secretEnv: [...infraSecrets, ...chainWatcher(chain).secrets.map((secret) => secret.name)],
      cpu: ["200m", "1"],
    }),
  ),
];

const securityContext: ISecurityContext = {
  runAsNonRoot: true,
  runAsUser: 1000,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
};

function envOf(s: ServiceSpec): Record<string, string> {
  return {
    ...common,
    ...(s.talksToSigner ? signerEnv : {}),
    [s.public ? "PORT" : "HEALTH_PORT"]: String(s.port),
    ...s.env,
  };
}

function deployment(s: ServiceSpec): IDeployment {
  const volumes: IVolume[] = [{ name: "tmp", emptyDir: {} }];
  const mounts: IVolumeMount[] = [{ name: "tmp", mountPath: "/tmp" }];
  if (s.talksToSigner) {
    volumes.push({
      name: "signer-client-cert",
      secret: { secretName: `${s.name}-signer-client-tls`, items: TLS_ITEMS, defaultMode: 0o440 },
    });
    mounts.push({ name: "signer-client-cert", mountPath: "/certs", readOnly: true });
  }
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: s.name, namespace: NAMESPACE, labels: labels(s.name) },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: labels(s.name) },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: { ...labels(s.name), ...(s.talksToSigner ? { "gateway/signer-client": "true" } : {}) },
          annotations: {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": String(s.port),
            "prometheus.io/path": "/metrics",
          },
        },
        spec: {
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 30,
          securityContext: { fsGroup: 1000 },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: "kubernetes.io/hostname",
              whenUnsatisfiable: "ScheduleAnyway",
              labelSelector: { matchLabels: labels(s.name) },
            },
          ],
          containers: [
            {
              name: s.name,
              image: IMAGE(s.image ?? s.name),
              ports: [{ name: "http", containerPort: s.port }],
              env: [
                ...Object.entries(envOf(s)).map(([name, value]) => ({ name, value })),
                ...s.secretEnv.map((name) => ({
                  name,
                  valueFrom: {
                    secretKeyRef: {
                      name: `${s.name}-secrets`,
                      key: name,
                      optional: OPTIONAL_SECRETS.has(name),
                    },
                  },
                })),
              ],
              resources: {
                requests: { cpu: s.cpu[0], memory: SERVICE_MEMORY[0] },
                limits: { cpu: s.cpu[1], memory: SERVICE_MEMORY[1] },
              },
              readinessProbe: {
                httpGet: { path: "/readyz", port: "http" },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              livenessProbe: {
                httpGet: { path: "/healthz", port: "http" },
                periodSeconds: 10,
                failureThreshold: 6,
              },
              startupProbe: {
                httpGet: { path: "/healthz", port: "http" },
                periodSeconds: 2,
                failureThreshold: 60,
              },
              securityContext,
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  };
}

function service(name: string, port: number): IService {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NAMESPACE, labels: labels(name) },
    spec: { selector: labels(name), ports: [{ name: "http", port, targetPort: "http" }] },
  };
}

function podDisruptionBudget(name: string): IPodDisruptionBudget {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name, namespace: NAMESPACE },
    spec: { minAvailable: 1, selector: { matchLabels: labels(name) } },
  };
}

const apiAutoscaler: IHorizontalPodAutoscaler = {
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "api", namespace: NAMESPACE },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
    minReplicas: 3,
    maxReplicas: 20,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
      },
    ],
  },
};

/**
 * The signer: one replica, its own namespace-local policy, the sealed seed and its passphrase
 * from two different Secrets (mounted as files, never in the environment), and the CA's
 * revocation list from a ConfigMap (publish one with `gen-crl` at install; the signer re-reads
 * it every minute).
 */
const signer: [IDeployment, IPersistentVolumeClaim, IService, INetworkPolicy] = [
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "signer", namespace: NAMESPACE, labels: labels("signer") },
    spec: {
      replicas: 1,
      // Never two signers at once: the intent ledger and audit log are one process's files.
      strategy: { type: "Recreate" },
      selector: { matchLabels: labels("signer") },
      template: {
        metadata: {
          labels: labels("signer"),
          annotations: {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": "7444",
            "prometheus.io/path": "/metrics",
          },
        },
        spec: {
          automountServiceAccountToken: false,
          securityContext: { fsGroup: 1000 },
          containers: [
            {
              name: "signer",
              image: IMAGE("signer"),
              ports: [
                { name: "grpc", containerPort: 7443 },
                { name: "health", containerPort: 7444 },
              ],
              env: [
                { name: "SIGNER_PORT", value: "7443" },
                { name: "SIGNER_HEALTH_PORT", value: "7444" },
                // The kubelet probes the pod's address; the gRPC port stays mTLS-only.
                { name: "SIGNER_HEALTH_HOST", value: "0.0.0.0" },
                { name: "SIGNER_TLS_CA", value: "/tls/ca.crt" },
                { name: "SIGNER_TLS_CERT", value: "/tls/tls.crt" },
                { name: "SIGNER_TLS_KEY", value: "/tls/tls.key" },
                { name: "SIGNER_TLS_CRL", value: "/tls-crl/crl.pem" },
                { name: "SIGNER_SEALED_SEED_FILE", value: "/seed/seed.sealed" },
                { name: "SIGNER_SEED_PASSPHRASE_FILE", value: "/seed-passphrase/passphrase" },
                { name: "SIGNER_AUDIT_LOG", value: "/audit/audit.jsonl" },
                {
                  name: "SIGNER_TRUSTED_APPROVERS",
                  valueFrom: { configMapKeyRef: { name: "signer-approvers", key: "approvers.json" } },
                },
                {
                  name: "SIGNER_CAPS",
                  valueFrom: { configMapKeyRef: { name: "signer-approvers", key: "caps.json" } },
                },
              ],
              resources: {
                requests: { cpu: "250m", memory: "256Mi" },
                limits: { cpu: "1", memory: "512Mi" },
              },
              readinessProbe: { httpGet: { path: "/readyz", port: "health" }, periodSeconds: 5 },
              livenessProbe: { httpGet: { path: "/healthz", port: "health" }, periodSeconds: 10 },
              securityContext,
              volumeMounts: [
                { name: "tmp", mountPath: "/tmp" },
                { name: "seed", mountPath: "/seed", readOnly: true },
                { name: "seed-passphrase", mountPath: "/seed-passphrase", readOnly: true },
                { name: "tls", mountPath: "/tls", readOnly: true },
                { name: "tls-crl", mountPath: "/tls-crl", readOnly: true },
                { name: "audit", mountPath: "/audit" },
              ],
            },
          ],
          volumes: [
            { name: "tmp", emptyDir: {} },
            {
              name: "seed",
              secret: {
                secretName: "signer-seed",
                items: [{ key: "seed.sealed", path: "seed.sealed" }],
                defaultMode: 0o440,
              },
            },
            {
              // Another Secret than the sealed seed: one leaked Secret is not enough.
              name: "seed-passphrase",
              secret: {
                secretName: "signer-seed-passphrase",
                items: [{ key: "passphrase", path: "passphrase" }],
                defaultMode: 0o440,
              },
            },
            { name: "tls", secret: { secretName: "signer-tls", items: TLS_ITEMS, defaultMode: 0o440 } },
            {
              name: "tls-crl",
              configMap: { name: "signer-tls-crl", items: [{ key: "crl.pem", path: "crl.pem" }] },
            },
            { name: "audit", persistentVolumeClaim: { claimName: "signer-audit" } },
          ],
        },
      },
    },
  },
  {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "signer-audit", namespace: NAMESPACE },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "5Gi" } } },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "signer", namespace: NAMESPACE, labels: labels("signer") },
    spec: { selector: labels("signer"), ports: [{ name: "grpc", port: 7443, targetPort: "grpc" }] },
  },
  {
    // Only the API and settlement may reach the signer, and the signer reaches nothing.
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: "signer", namespace: NAMESPACE },
    spec: {
      podSelector: { matchLabels: labels("signer") },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { "gateway/signer-client": "true" } } }],
          ports: [{ protocol: "TCP", port: 7443 }],
        },
        { ports: [{ protocol: "TCP", port: 7444 }] },
      ],
      egress: [],
    },
  },
];

/** NATS: 3 nodes, JetStream on persistent volumes; streams are created with 3 replicas. */
const nats: [IConfigMap, IService, IStatefulSet, IPodDisruptionBudget] = [
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "nats-config", namespace: NAMESPACE },
    data: {
      "nats.conf": [
        "port: 4222",
        "http_port: 8222",
        "server_name: $POD_NAME",
        "jetstream { store_dir: /data/jetstream, max_file_store: 20GB }",
        "cluster {",
        "  name: gateway",
        "  port: 6222",
        "  routes: [nats://nats-0.nats:6222, nats://nats-1.nats:6222, nats://nats-2.nats:6222]",
        "}",
        "lame_duck_duration: 30s",
        "",
      ].join("\n"),
    },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "nats", namespace: NAMESPACE, labels: labels("nats") },
    spec: {
      clusterIP: "None",
      publishNotReadyAddresses: true,
      selector: labels("nats"),
      ports: [
        { name: "client", port: 4222 },
        { name: "cluster", port: 6222 },
        { name: "monitor", port: 8222 },
      ],
    },
  },
  {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "nats", namespace: NAMESPACE, labels: labels("nats") },
    spec: {
      serviceName: "nats",
      replicas: 3,
      podManagementPolicy: "Parallel",
      selector: { matchLabels: labels("nats") },
      template: {
        metadata: { labels: labels("nats") },
        spec: {
          containers: [
            {
              name: "nats",
              image: "nats:2.10-alpine",
              args: ["-c", "/etc/nats/nats.conf"],
              env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
              ports: [
                { name: "client", containerPort: 4222 },
                { name: "cluster", containerPort: 6222 },
                { name: "monitor", containerPort: 8222 },
              ],
              readinessProbe: {
                httpGet: { path: "/healthz?js-enabled-only=true", port: "monitor" },
                periodSeconds: 5,
              },
              livenessProbe: { httpGet: { path: "/healthz", port: "monitor" }, periodSeconds: 10 },
              resources: { requests: { cpu: "250m", memory: "512Mi" }, limits: { cpu: "2", memory: "2Gi" } },
              volumeMounts: [
                { name: "config", mountPath: "/etc/nats" },
                { name: "data", mountPath: "/data" },
              ],
            },
          ],
          volumes: [{ name: "config", configMap: { name: "nats-config" } }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "20Gi" } } },
        },
      ],
    },
  },
  podDisruptionBudget("nats"),
];

const migrateJob: IJob = {
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "migrate-1-0-0", namespace: NAMESPACE },
  spec: {
    backoffLimit: 3,
    template: {
      spec: {
        restartPolicy: "OnFailure",
        automountServiceAccountToken: false,
        containers: [
          {
            name: "migrate",
            image: IMAGE("api"),
            command: ["node", "--enable-source-maps", "dist/migrate.js"],
            env: [
              {
                name: "DATABASE_URL",
                valueFrom: { secretKeyRef: { name: "api-secrets", key: "DATABASE_URL" } },
              },
            ],
            securityContext,
            volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
          },
        ],
        volumes: [{ name: "tmp", emptyDir: {} }],
      },
    },
  },
};

export function manifests(): KubernetesObject[] {
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
    ...nats,
    migrateJob,
    ...signer,
    ...SERVICES.flatMap((s) => [deployment(s), service(s.name, s.port), podDisruptionBudget(s.name)]),
    apiAutoscaler,
  ];
}
