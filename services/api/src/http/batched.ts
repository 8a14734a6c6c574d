/**
 * Wraps a function of many items into a function of one: `run` gets everything submitted while
 * its previous call was in flight. A caller alone waits for nothing; under load, many callers
 * share one PostgreSQL round trip (and one commit) instead of queueing for a connection each.
 * `run` returns one result per item, in order; if it throws, every item of that call rejects.
 * `maxBatch`: at most this many items per call; the rest wait for the next.
 */
export function batched<In, Out>(
  run: (items: In[]) => Promise<Out[]>,
  { maxBatch = Number.POSITIVE_INFINITY }: { maxBatch?: number } = {},
): (item: In) => Promise<Out> {
  let waiting: { item: In; resolve(out: Out): void; reject(err: unknown): void }[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        const results = await run(batch.map((w) => w.item));
        for (const [i, w] of batch.entries()) w.resolve(results[i]!);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    running = false;
  }

  return (item) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!running) void drain();
    });
}
