// Builds every service's image with podman from deploy/docker/Dockerfile on the base made here.
// `--isolation chroot`: the build's RUN steps need no container runtime, which a sandbox without
// CAP_SYS_RESOURCE cannot start; `--pull=never`: no registry is asked for anything.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBaseImage, machineNode } from "./base-image.js";
import { inspectImage, podmanAsync } from "./podman.js";
import { localTag, SERVICE_IMAGES, type ServiceImage } from "./service-images.js";

export interface BuiltImage {
  image: ServiceImage;
  tag: string;
  id: string;
  bytes: number;
  seconds: number;
}

export interface BuildImagesOptions {
  root: string;
  /** Only these images (by name); all five when empty. */
  only?: readonly string[];
  mirror?: string;
  log?: (line: string) => void;
}

/**
 * The CA file this machine's Node.js trusts besides its own (NODE_EXTRA_CA_CERTS): the build's
 * downloads get it as the `build-ca` secret, mounted for those steps only and kept in no layer.
 */
export function buildCaSecret(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  return file && existsSync(file) ? ["--secret", `id=build-ca,src=${file}`] : [];
}

export const DEFAULT_DEBIAN_MIRROR = "http://deb.debian.org/debian";

export async function buildImages({ root, only = [], mirror, log = () => {} }: BuildImagesOptions): Promise<{
  base: string;
  baseMade: boolean;
  images: BuiltImage[];
}> {
  const unknown = only.filter((name) => !SERVICE_IMAGES.some((i) => i.name === name));
  if (unknown.length) throw new Error(`no image named ${unknown.join(", ")}`);
  const node = machineNode(root);
  const startedBase = performance.now();
  const base = await ensureBaseImage({
    node,
    mirror: mirror ?? DEFAULT_DEBIAN_MIRROR,
    workDir: process.env.TMPDIR ?? (tmpdir() === "/tmp" ? "/var/tmp" : tmpdir()),
    log,
  });
  const baseSeconds = (performance.now() - startedBase) / 1000;
  log(`${base.name}: ${base.made ? `made in ${baseSeconds.toFixed(0)} s` : "up to date, kept"}`);
  const images: BuiltImage[] = [];
  for (const image of SERVICE_IMAGES.filter((i) => only.length === 0 || only.includes(i.name))) {
    const tag = localTag(image);
    log(`${tag}: building ${image.service}`);
    const started = performance.now();
    await podmanAsync([
      "build",
      "--isolation",
      "chroot",
      "--pull=never",
      "--layers",
      "--build-arg",
      `NODE_IMAGE=${base.name}`,
      "--build-arg",
      `SERVICE=${image.service}`,
      ...buildCaSecret(),
      "--file",
      path.join(root, "deploy/docker/Dockerfile"),
      "--tag",
      tag,
      root,
    ]);
    const facts = inspectImage(tag);
    const seconds = (performance.now() - started) / 1000;
    images.push({ image, tag, id: facts.id, bytes: facts.size, seconds });
    log(`${tag}: ${(facts.size / 1e6).toFixed(0)} MB, ${seconds.toFixed(0)} s`);
  }
  // Every build leaves its stages' layers untagged as the next build's cache; a day's worth are
  // kept, older ones go, so a machine that builds on every test run does not fill its disk.
  await podmanAsync(["image", "prune", "--force", "--filter", "until=24h"]);
  return { base: base.name, baseMade: base.made, images };
}
