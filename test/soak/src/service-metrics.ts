// Reading the services' Prometheus /metrics (their health ports) during a soak.

/** The /metrics text, or undefined when the service did not answer in time. */
export async function readMetricsText(healthUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${healthUrl}/metrics`, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

export interface LiveHeap {
  /** Heap in use plus external memory just after the latest full collection. */
  bytes: number;
  /** Full collections the service has had, to tell a new reading from a repeated one. */
  collections: number;
}

/** `gateway_heap_after_full_gc_bytes` and `gateway_full_gcs` (packages/metrics); undefined when
 * the service does not report them or has not collected fully yet. */
export function parseLiveHeap(text: string): LiveHeap | undefined {
  const value = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match ? Number(match[1]) : undefined;
  };
  const heapUsed = value(/^gateway_heap_after_full_gc_bytes\{[^}]*kind="heap_used"[^}]*\} (\d+)$/m);
  const external = value(/^gateway_heap_after_full_gc_bytes\{[^}]*kind="external"[^}]*\} (\d+)$/m);
  const collections = value(/^gateway_full_gcs\{[^}]*\} (\d+)$/m);
  if (heapUsed === undefined || external === undefined || !collections) return undefined;
  return { bytes: heapUsed + external, collections };
}

/** Every service's /metrics text that answered, by name, read once a sample: the heap readings and
 * the signer's ledger both come from it. */
export async function readMetricsTexts(healthUrls: Record<string, string>): Promise<Record<string, string>> {
  const texts = await Promise.all(
    Object.entries(healthUrls).map(async ([name, url]) => {
      const text = await readMetricsText(url);
      return text === undefined ? [] : ([[name, text]] as const);
    }),
  );
  return Object.fromEntries(texts.flat());
}

/** Each service's heap after full collections, where its text reports one. */
export function liveHeapsOf(texts: Record<string, string>): Record<string, LiveHeap> {
  return Object.fromEntries(
    Object.entries(texts).flatMap(([name, text]) => {
      const heap = parseLiveHeap(text);
      return heap ? [[name, heap]] : [];
    }),
  );
}
