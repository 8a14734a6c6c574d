import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { createMetricsRegistry } from "./index.js";

// A full collection on demand, without starting the test runner with --expose-gc.
v8.setFlagsFromString("--expose-gc");
const fullCollection = vm.runInNewContext("gc") as () => void;

const MiB = 2 ** 20;

async function collectAndRead(registry: ReturnType<typeof createMetricsRegistry>) {
  fullCollection();
  // The observer's entry arrives after the pause.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const text = await registry.metrics();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
  return {
    heapUsed: value(/^gateway_heap_after_full_gc_bytes\{kind="heap_used",service="test"\} (\d+)$/m),
    collections: value(/^gateway_full_gcs\{service="test"\} (\d+)$/m),
  };
}

describe("heap after full collections", () => {
  it("follows what the process keeps, not the garbage it made", async () => {
    const registry = createMetricsRegistry("test");
    const before = await collectAndRead(registry);
    expect(before.collections).toBeGreaterThanOrEqual(1);

    let kept: number[][] | undefined = Array.from({ length: 64 }, () =>
      Array.from({ length: 65_536 }, (_, i) => i + 0.5),
    );
    // Garbage beside it: made and dropped, gone after the collection.
    for (let n = 0; n < 64; n++) Array.from({ length: 65_536 }, (_, i) => i + 0.5);
    const holding = await collectAndRead(registry);
    expect(holding.collections).toBeGreaterThan(before.collections);
    // 64 arrays of 65,536 doubles: 32 MiB of live data.
    expect(holding.heapUsed - before.heapUsed).toBeGreaterThan(28 * MiB);
    expect(holding.heapUsed - before.heapUsed).toBeLessThan(48 * MiB);

    expect(kept.length).toBe(64);
    kept = undefined;
    const released = await collectAndRead(registry);
    expect(holding.heapUsed - released.heapUsed).toBeGreaterThan(28 * MiB);
  });
});
