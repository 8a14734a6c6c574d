// `npm run images [name...]`: every service's production image, built with podman here.
import path from "node:path";
import { buildImages } from "./images/build-images.js";
import { localTag, SERVICE_IMAGES } from "./images/service-images.js";

const root = path.resolve(import.meta.dirname, "..");
const say = (line: string) => process.stderr.write(`[images] ${line}\n`);

say(
  [
    "builds the production images with podman from deploy/docker/Dockerfile:",
    `  ${SERVICE_IMAGES.map(localTag).join(", ")}`,
    "on a base image made here (no registry is used): a minimal Debian root filesystem made by",
    "debootstrap from the Debian mirror, with CA certificates, this machine's Node.js and npm,",
    "and the user node (uid 1000). It needs root, podman and debootstrap (npm run images installs",
    "both from Debian's packages), the Debian mirror and the npm registry (the build installs the",
    "workspace). The base is kept and made again only when Node.js or its recipe changes.",
  ].join("\n"),
);
try {
  const built = await buildImages({
    root,
    only: process.argv.slice(2),
    mirror: process.env.DEBIAN_MIRROR,
    log: say,
  });
  for (const image of built.images) {
    process.stdout.write(
      `${image.tag.padEnd(30)} ${(image.bytes / 1e6).toFixed(0).padStart(5)} MB  ${image.id.slice(0, 12)}\n`,
    );
  }
} catch (err) {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
