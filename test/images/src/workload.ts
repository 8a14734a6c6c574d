// What the Kubernetes manifests say about a workload's container, read from deploy/kubernetes:
// the image test starts each image with these variables, mounts and security settings, so an
// image that does not fit its manifest (a path, a user, a writable root) fails here.
import { manifests } from "../../../deploy/kubernetes/manifests.js";

export interface WorkloadMount {
  volume: string;
  mountPath: string;
  readOnly: boolean;
  kind: "emptyDir" | "secret" | "configMap" | "persistentVolumeClaim";
}

export interface Workload {
  /** The variables given as values. */
  env: Record<string, string>;
  /** The variables read from a Secret or ConfigMap key. */
  referencedEnv: string[];
  mounts: WorkloadMount[];
  runAsUser: number;
  readOnlyRoot: boolean;
  /** A Job's command, when it replaces the image's entry point. */
  command?: string[];
}

interface Container {
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  securityContext: { runAsUser: number; readOnlyRootFilesystem: boolean };
  command?: string[];
}
interface PodSpec {
  containers: Container[];
  volumes?: ({ name: string } & Partial<Record<WorkloadMount["kind"], unknown>>)[];
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: { template: { spec: PodSpec } };
}

const KINDS: WorkloadMount["kind"][] = ["emptyDir", "secret", "configMap", "persistentVolumeClaim"];

/** The first container of the Deployment or Job of that name. */
export function workload(kind: "Deployment" | "Job", name: string): Workload {
  const found = (manifests() as Manifest[]).find((m) => m.kind === kind && m.metadata.name.startsWith(name));
  if (!found) throw new Error(`no ${kind} ${name} in the manifests`);
  const pod = found.spec.template.spec;
  const [container] = pod.containers;
  if (!container) throw new Error(`${kind} ${name} has no container`);
  const env = container.env ?? [];
  return {
    env: Object.fromEntries(env.flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]]))),
    referencedEnv: env.filter((e) => e.valueFrom !== undefined).map((e) => e.name),
    mounts: (container.volumeMounts ?? []).map((m) => {
      const volume = pod.volumes?.find((v) => v.name === m.name);
      const kind = KINDS.find((k) => volume?.[k] !== undefined);
      if (!kind) throw new Error(`${name}: volume ${m.name} is of no known kind`);
      return { volume: m.name, mountPath: m.mountPath, readOnly: m.readOnly === true, kind };
    }),
    runAsUser: container.securityContext.runAsUser,
    readOnlyRoot: container.securityContext.readOnlyRootFilesystem,
    ...(container.command ? { command: container.command } : {}),
  };
}
