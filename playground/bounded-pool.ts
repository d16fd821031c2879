/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping the input order in the
 * result. A rejected call rejects the whole map (callers that want per-item failures catch inside
 * `fn`). The scenario suite uses it so a 2-core machine runs two scenarios at a time.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new Error(`concurrency must be a whole number ≥ 1, got ${limit}`);
  }
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
