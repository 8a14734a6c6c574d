// What the signer's memory holds, from its /metrics (health port): the intent ledger's entries,
// which grow with every signing by design, beside its heap. A signer whose memory climbs faster
// than its ledger does holds something else (docs/signer.md, "Memory and start time").
export interface SignerState {
  intents: number;
  locks: number;
  deposits: number;
  heapUsed: number;
  heapTotal: number;
}

/** Reads the gauges out of the signer's Prometheus text; undefined when one is missing. */
export function parseSignerMetrics(text: string): SignerState | undefined {
  const value = (name: string, kind: string) => {
    const match = new RegExp(`^${name}\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)$`, "m").exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const state = {
    intents: value("gateway_signer_ledger_entries", "intents"),
    locks: value("gateway_signer_ledger_entries", "locks"),
    deposits: value("gateway_signer_ledger_entries", "deposits"),
    heapUsed: value("gateway_signer_memory_bytes", "heap_used"),
    heapTotal: value("gateway_signer_memory_bytes", "heap_total"),
  };
  return Object.values(state).every((v) => v !== undefined) ? (state as SignerState) : undefined;
}
