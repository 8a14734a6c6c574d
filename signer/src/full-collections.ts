// The signer's heap right after each full collection: what it keeps, without its garbage. Its
// ledger grows by design, so an operator (and the soak) reads that growth here rather than in the
// resident size, which follows when V8 happened to collect. The services report the same figures
// through prom-client (packages/metrics); the signer keeps its dependencies few and counts alone.
import { constants, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";

export interface FullCollections {
  collections: number;
  heapUsed: number;
  external: number;
}

/** Watches from now on; the object it returns is updated after each full collection. */
export function watchFullCollections(): Readonly<FullCollections> {
  const state: FullCollections = { collections: 0, heapUsed: 0, external: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const heap = v8.getHeapStatistics();
      state.collections += 1;
      state.heapUsed = heap.used_heap_size;
      state.external = heap.external_memory;
    }
  }).observe({ entryTypes: ["gc"] });
  return state;
}
