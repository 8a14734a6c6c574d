import { defineConfig } from "vitest/config";

// The domain package is pure: its tests need none of the PostgreSQL/NATS global setup
// that the root config starts, so `pnpm exec vitest run` here runs them on their own.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
  },
});
