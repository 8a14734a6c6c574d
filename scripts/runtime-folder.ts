// `tsx scripts/runtime-folder.ts <service> <out>`: the production image's /app for one service
// (scripts/build/runtime-folder.ts); the Dockerfile's build stage runs it after scripts/build.ts.
import path from "node:path";
import { writeRuntimeFolder } from "./build/runtime-folder.js";

const [service, out] = process.argv.slice(2);
if (!service || !out) {
  process.stderr.write("usage: runtime-folder.ts <service package or folder> <output folder>\n");
  process.exit(2);
}
try {
  writeRuntimeFolder(path.resolve(import.meta.dirname, ".."), service, path.resolve(out));
} catch (err) {
  process.stderr.write(`runtime folder: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
