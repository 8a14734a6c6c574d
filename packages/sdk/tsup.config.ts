import { defineConfig } from "tsup";

// ESM and CJS builds with types. The webhook helper is bundled in, so the published package
// depends on nothing but the platform (fetch, node:crypto). `types` lets a browser client take the
// resources' types without the Node client.
export default defineConfig({
  entry: { index: "src/index.ts", types: "src/gen/types.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  target: "node20",
  platform: "node",
  noExternal: ["@gateway/webhook-signature"],
  sourcemap: true,
});
