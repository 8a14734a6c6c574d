// Counts of the signer's decisions, and what its memory holds, in Prometheus' text format,
// without a metrics library: the signer keeps its dependencies few. Served on the health port at
// /metrics.
import type { FullCollections } from "./full-collections.js";
import { refusalCodeName } from "./refusal.js";
import type { SignerCore } from "./signer-core.js";
import type { IntentLedger } from "./state/ledger.js";

export interface DecisionMetrics {
  /** The same core, counting every decision it makes. */
  core: SignerCore;
  text(): string;
}

/**
 * `ledger`: its sizes are exported too. The ledger keeps every signed intent for good (exactly
 * once), so they only grow; with the heap beside them an operator tells that growth, about
 * 100–550 bytes a signing (docs/signer.md, "Memory and start time"), from anything else.
 */
export function countDecisions(
  core: SignerCore,
  ledger?: IntentLedger,
  fullCollections?: Readonly<FullCollections>,
): DecisionMetrics {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  return {
    core: {
      ...core,
      decide(request, expect) {
        const outcome = core.decide(request, expect);
        bump(
          outcome.ok
            ? 'outcome="signed",code=""'
            : `outcome="refused",code="${refusalCodeName(outcome.refusal.code)}"`,
        );
        return outcome;
      },
    },
    text() {
      const lines = [
        "# HELP gateway_signer_decisions_total Signing decisions by outcome and refusal code",
        "# TYPE gateway_signer_decisions_total counter",
      ];
      for (const [labels, n] of counts)
        lines.push(`gateway_signer_decisions_total{service="signer",${labels}} ${n}`);
      const gauge = (name: string, help: string, values: [string, number][]) => {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
        for (const [label, n] of values) lines.push(`${name}{service="signer",${label}} ${n}`);
      };
      if (ledger) {
        const { intents, locks, deposits } = ledger.size();
        gauge(
          "gateway_signer_ledger_entries",
          "What the intent ledger holds: bound intents, locked inputs, swept deposits",
          [
            ['kind="intents"', intents],
            ['kind="locks"', locks],
            ['kind="deposits"', deposits],
          ],
        );
      }
      const memory = process.memoryUsage();
      gauge("gateway_signer_memory_bytes", "The signer process's memory (process.memoryUsage)", [
        ['kind="rss"', memory.rss],
        ['kind="heap_total"', memory.heapTotal],
        ['kind="heap_used"', memory.heapUsed],
        ['kind="external"', memory.external],
      ]);
      if (fullCollections) {
        // The services' names (packages/metrics), so one alert and the soak read every process.
        gauge(
          "gateway_heap_after_full_gc_bytes",
          "V8's heap in use (heap_used) and the external memory it tracks (external) just after the latest full collection",
          [
            ['kind="heap_used"', fullCollections.heapUsed],
            ['kind="external"', fullCollections.external],
          ],
        );
        lines.push(
          "# HELP gateway_full_gcs Full (mark-compact) collections since the process started",
          "# TYPE gateway_full_gcs gauge",
          `gateway_full_gcs{service="signer"} ${fullCollections.collections}`,
        );
      }
      return `${lines.join("\n")}\n`;
    },
  };
}
