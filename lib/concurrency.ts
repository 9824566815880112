// Bounded concurrency, shared by the stores, the deploy flow and the uploaders of the browser
// and the command-line client: a neutral module, so none of them imports another's room for it.

/**
 * Runs fn over items with at most `limit` in flight. On the first failure no new item starts;
 * the ones in flight are awaited, then the failure is thrown, so a caller cleaning up after a
 * failure never races a write still under way.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
  return out;
}
