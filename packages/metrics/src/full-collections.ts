// What the heap holds right after each full collection: a garbage-collected process's live data.
// The resident size swings with when V8 happens to collect, so a leak is told from garbage here.
import { constants, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import client from "prom-client";

export interface FullCollectionReading {
  /** Full (mark-compact) collections since the watch began. */
  collections: number;
  /** V8's heap in use and the memory outside it that V8 tracks (Buffers), just after the last. */
  heapUsed: number;
  external: number;
}

let reading: FullCollectionReading | undefined;

/** Starts watching once per process; each call returns the reading so far. */
export function watchFullCollections(): () => FullCollectionReading {
  if (!reading) {
    const current: FullCollectionReading = { collections: 0, heapUsed: 0, external: 0 };
    reading = current;
    // The entry arrives a moment after the pause, so a little is allocated since: the figure
    // errs high by what the process allocated in that moment, never low.
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const detail = (entry as unknown as { detail?: { kind?: number } }).detail;
        if (detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
        const heap = v8.getHeapStatistics();
        current.collections += 1;
        current.heapUsed = heap.used_heap_size;
        current.external = heap.external_memory;
      }
    }).observe({ entryTypes: ["gc"] });
  }
  const watched = reading;
  return () => ({ ...watched });
}

/**
 * `gateway_heap_after_full_gc_bytes{kind="heap_used"|"external"}` and `gateway_full_gcs`, read at
 * each scrape. Alert on the first climbing for hours; the second says how fresh it is.
 */
export function fullCollectionMetrics(registry: client.Registry): void {
  const read = watchFullCollections();
  new client.Gauge({
    name: "gateway_heap_after_full_gc_bytes",
    help: "V8's heap in use (heap_used) and the external memory it tracks (external) just after the latest full collection",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const now = read();
      this.set({ kind: "heap_used" }, now.heapUsed);
      this.set({ kind: "external" }, now.external);
    },
  });
  new client.Gauge({
    name: "gateway_full_gcs",
    help: "Full (mark-compact) collections since the process started",
    registers: [registry],
    collect() {
      this.set(read().collections);
    },
  });
}
