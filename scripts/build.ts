// `npm run build [package...]`: bundles the services (every one, or the packages named by folder
// or workspace name) into `<package>/dist/`; a bundle whose inputs did not change is kept.
import path from "node:path";
import { buildServices } from "./build/build-services.js";

const root = path.resolve(import.meta.dirname, "..");
try {
  for (const report of await buildServices(root, process.argv.slice(2))) {
    const what = report.built ? "built" : "up to date";
    process.stdout.write(`${report.dir.padEnd(24)} ${what} (${Math.round(report.ms)} ms)\n`);
  }
} catch (err) {
  process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
