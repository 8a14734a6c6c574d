import { defineConfig } from "tsup";

// ESM and CJS builds with types. The webhook helper is bundled in, so the published package
// depends on nothing but the platform (fetch, node:crypto).
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  target: "node20",
  platform: "node",
  noExternal: ["@gateway/webhook-signature"],
  sourcemap: true,
});
