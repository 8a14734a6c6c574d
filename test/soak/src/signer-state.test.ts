import { describe, expect, it } from "vitest";
import { parseSignerMetrics } from "./signer-state.js";

describe("parseSignerMetrics", () => {
  it("reads the ledger's entries and the heap out of the signer's /metrics", () => {
    const text = [
      'gateway_signer_decisions_total{service="signer",outcome="signed",code=""} 12',
      "# TYPE gateway_signer_ledger_entries gauge",
      'gateway_signer_ledger_entries{service="signer",kind="intents"} 10',
      'gateway_signer_ledger_entries{service="signer",kind="locks"} 25',
      'gateway_signer_ledger_entries{service="signer",kind="deposits"} 9',
      'gateway_signer_memory_bytes{service="signer",kind="rss"} 900',
      'gateway_signer_memory_bytes{service="signer",kind="heap_total"} 800',
      'gateway_signer_memory_bytes{service="signer",kind="heap_used"} 700',
    ].join("\n");
    expect(parseSignerMetrics(text)).toEqual({
      intents: 10,
      locks: 25,
      deposits: 9,
      heapUsed: 700,
      heapTotal: 800,
    });
    // A signer of before, without the gauges: nothing rather than zeros.
    expect(parseSignerMetrics(text.split("\n")[0]!)).toBeUndefined();
  });
});
