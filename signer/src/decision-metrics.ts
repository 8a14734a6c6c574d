// Counts of the signer's decisions, in Prometheus' text format, without a metrics library: the
// signer keeps its dependencies few. Served on the health port at /metrics.
import { refusalCodeName } from "./refusal.js";
import type { SignerCore } from "./signer-core.js";

export interface DecisionMetrics {
  /** The same core, counting every decision it makes. */
  core: SignerCore;
  text(): string;
}

export function countDecisions(core: SignerCore): DecisionMetrics {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  return {
    core: {
      ...core,
      decide(request) {
        const outcome = core.decide(request);
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
      return `${lines.join("\n")}\n`;
    },
  };
}
