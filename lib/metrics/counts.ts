import type { Counter } from "prom-client";

// Counters that a hot path moves on every request (cache_requests_total: the serve path's
// manifest and content look-ups) are kept as plain numbers, one per fixed label set bound once,
// and added into the prom-client counter when it is read (its `collect`, ./registry.ts). A
// labelled prom-client child validates and hashes its labels on every inc (about 0.4 µs).
//
// The cells live on globalThis, keyed by the counter (itself shared the same way), so every copy
// of a module that binds one (the data plane's bundle, Next's) is read by the one collect.

interface Cell {
  readonly labels: Record<string, string>;
  n: number;
  /** What the counter has been given of `n` so far. */
  written: number;
}

const cells: Map<object, Cell[]> = ((globalThis as unknown as Record<symbol, Map<object, Cell[]> | undefined>)[
  Symbol.for("dropsite.metricsCounts")
] ??= new Map<object, Cell[]>());

/** A child of `counter` for one fixed label set whose inc() is an addition, counted when scraped. */
export function boundCounter<L extends string>(counter: Counter<L>, labels: Record<L, string>): { inc(): void } {
  const cell: Cell = { labels, n: 0, written: 0 };
  let list = cells.get(counter);
  if (!list) cells.set(counter, (list = []));
  list.push(cell);
  return {
    inc() {
      cell.n++;
    },
  };
}

/** A counter's `collect`: adds what its bound children counted since it was last read. */
export function collectCounts(counter: Counter<string>): void {
  for (const cell of cells.get(counter) ?? []) {
    if (cell.n === cell.written) continue;
    counter.inc(cell.labels, cell.n - cell.written);
    cell.written = cell.n;
  }
}
