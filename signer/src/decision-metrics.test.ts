import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { createTestSigner, request, solanaTokenSweep } from "../test/fixtures.js";
import { countDecisions } from "./decision-metrics.js";
import { watchFullCollections } from "./full-collections.js";

const signer = createTestSigner();
afterAll(() => signer.close());

describe("decision metrics", () => {
  it("counts signed and refused decisions by refusal code", () => {
    const metrics = countDecisions(signer.core, signer.ledger);
    const { intent, tx } = solanaTokenSweep(signer.keyring, 1);
    expect(metrics.core.decide(request(intent, tx)).ok).toBe(true);
    // The same intent id for another amount: a replay with another effect.
    const { tx: other } = solanaTokenSweep(signer.keyring, 1, 9_999n, intent.intentId);
    expect(metrics.core.decide(request({ ...intent, amount: 9_999n }, other)).ok).toBe(false);
    const text = metrics.text();
    expect(text).toContain('gateway_signer_decisions_total{service="signer",outcome="signed",code=""} 1');
    expect(text).toMatch(
      /gateway_signer_decisions_total\{service="signer",outcome="refused",code="[A-Z_]+"\} 1/,
    );
    // The one sweep signed is bound and its deposit counted; the refusal added nothing.
    expect(text).toContain('gateway_signer_ledger_entries{service="signer",kind="intents"} 1');
    expect(text).toContain('gateway_signer_ledger_entries{service="signer",kind="deposits"} 1');
    expect(text).toMatch(/gateway_signer_memory_bytes\{service="signer",kind="heap_used"\} [1-9]\d+/);
  });

  it("reports the heap after the latest full collection, as the services do", async () => {
    const collections = watchFullCollections();
    const metrics = countDecisions(signer.core, signer.ledger, collections);
    v8.setFlagsFromString("--expose-gc");
    (vm.runInNewContext("gc") as () => void)();
    // The observer's entry arrives after the pause.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = metrics.text();
    expect(text).toMatch(/^gateway_full_gcs\{service="signer"\} [1-9]\d*$/m);
    const heap = /^gateway_heap_after_full_gc_bytes\{service="signer",kind="heap_used"\} (\d+)$/m.exec(text);
    expect(Number(heap?.[1])).toBe(collections.heapUsed);
    expect(collections.heapUsed).toBeGreaterThan(1_000_000);
  });
});
