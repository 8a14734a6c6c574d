import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// One run covers unit, integration and end-to-end tests. Integration tests share the
// PostgreSQL and NATS that the test kit's global setup starts (or finds) once per run.
export default defineConfig({
  // The SDK also ships a build (dist, made by its own test); tests use its sources, which a
  // fresh clone has before anything is built.
  resolve: {
    alias: { "@gateway/sdk": fileURLToPath(new URL("./packages/sdk/src/index.ts", import.meta.url)) },
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "services/*/src/**/*.test.ts",
      "signer/src/**/*.test.ts",
      "test/**/*.test.ts",
      "deploy/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["packages/testkit/src/global-setup.ts"],
  },
});
