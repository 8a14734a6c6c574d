import { describe, expect, it } from "vitest";
import { parseLiveHeap } from "./service-metrics.js";

describe("a service's heap after full collections, from its /metrics", () => {
  it("adds external memory to the heap and needs a full collection to have happened", () => {
    const text = (collections: number) =>
      [
        "# HELP gateway_heap_after_full_gc_bytes V8's heap",
        "# TYPE gateway_heap_after_full_gc_bytes gauge",
        'gateway_heap_after_full_gc_bytes{kind="heap_used",service="settlement"} 56623104',
        'gateway_heap_after_full_gc_bytes{kind="external",service="settlement"} 3145728',
        "# TYPE gateway_full_gcs gauge",
        `gateway_full_gcs{service="settlement"} ${collections}`,
      ].join("\n");
    expect(parseLiveHeap(text(12))).toEqual({ bytes: 59_768_832, collections: 12 });
    expect(parseLiveHeap(text(0))).toBeUndefined();
    expect(parseLiveHeap("nodejs_heap_size_used_bytes 1\n")).toBeUndefined();
  });
});
