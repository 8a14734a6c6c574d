// The chain guard with a probe of its own making: each chain's probe is tested in its package
// (packages/chain-<chain>/src/preflight.test.ts), every chain's under one guard in
// packages/chain-packages.
import { createLogger } from "@gateway/logging";
import { describe, expect, it } from "vitest";
import { startChainGuard } from "./index.js";

const log = createLogger({ name: "test", level: "silent" });

describe("the chain guard", () => {
  it("counts a probe that hangs (a stopped node) as its endpoint not answering", async () => {
    let hang = false;
    const probe = {
      chain: "sui" as const,
      endpoint: "SUI_GRPC_URL",
      run: () =>
        hang
          ? new Promise<never>(() => {})
          : Promise.resolve([
              { chain: "sui" as const, variable: "SUI_CHAIN_ID", ok: true, detail: "same chain" },
            ]),
    };
    const guard = await startChainGuard({
      service: "test",
      probes: [probe],
      intervalMs: 50,
      timeoutMs: 300,
      log,
    });
    try {
      hang = true;
      await expect.poll(() => guard.crediting("sui"), { timeout: 3_000, interval: 50 }).toBe(false);
      expect(guard.results()).toEqual([
        {
          chain: "sui",
          variable: "SUI_GRPC_URL",
          ok: false,
          detail: "the endpoint did not answer within 0.3 s",
        },
      ]);
    } finally {
      guard.stop();
    }
  });
});
