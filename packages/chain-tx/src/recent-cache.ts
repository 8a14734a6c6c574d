/**
 * The last `size` answers by key, the least recently used dropped first. Sized for what recurs
 * (programs, mints, the vault, the gas wallet, the current blockhash), not for every key seen: a
 * deposit address is used by one payment's few transactions within seconds, so a cache that kept
 * thousands of them would only grow.
 */
export function recentCache<V>(size: number) {
  const entries = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        // Last in the map's order: the hot few are never the oldest.
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    /** Keeps `value` (callers keep no pooled Buffer slice or unflattened string in it) and returns it. */
    remember(key: string, value: V): V {
      if (entries.size >= size && !entries.has(key)) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
      return value;
    },
    get size(): number {
      return entries.size;
    },
  };
}

/**
 * The same characters in one flat string. A base58 encoder appends a character at a time, so
 * the address it returns is, in V8, a tree of some forty concatenations until something
 * flattens it, many times the heap of the flat string. A string kept for long (a cache key; the watcher keeps each deposit's token account
 * for a day after its payment expires) is kept flat. Copying through a Buffer is certain to
 * flatten, where the tricks that flatten in place may be optimized away.
 */
export function flatCopy(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
