/** The value for `key`: made on first use, then kept in `cache` for as long as the cache keeps it. */
export function keptIn<K, V>(
  cache: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  make: (key: K) => V,
): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make(key);
    cache.set(key, value);
  }
  return value;
}
