// The production images: one per deployable, named as the Kubernetes manifests name them.
export interface ServiceImage {
  /** The Deployment's image name (`registry/gateway/<name>` in deploy/kubernetes). */
  name: "api" | "settlement" | "notifier" | "watcher" | "signer";
  /** The workspace package the Dockerfile's SERVICE names. */
  service: string;
}

export const SERVICE_IMAGES: readonly ServiceImage[] = [
  { name: "api", service: "@gateway/api" },
  { name: "settlement", service: "@gateway/settlement" },
  { name: "notifier", service: "@gateway/notifier" },
  { name: "watcher", service: "@gateway/watcher" },
  { name: "signer", service: "@gateway/signer" },
];

/** The local tag `npm run images` gives an image: `localhost/gateway-<name>`. */
export const localTag = (image: ServiceImage) => `localhost/gateway-${image.name}`;
