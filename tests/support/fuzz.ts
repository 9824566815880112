import fc from "fast-check";

// One configuration for every property: a fixed seed and a modest number of runs in `npm test`
// (reproducible), a random seed and many runs under `npm run fuzz` (FUZZ_RUNS, FUZZ_SEED).
// A failure prints the seed and path to replay it.

const runs = Number(process.env.FUZZ_RUNS ?? "") || 200;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? Date.now() : 20261122;

export const fuzz: fc.Parameters<unknown> = { seed, numRuns: runs };

export function check<T>(prop: fc.IProperty<T> | fc.IAsyncProperty<T>, scale = 1): void | Promise<void> {
  return fc.assert(prop as fc.IProperty<T>, {
    ...(fuzz as fc.Parameters<T>),
    numRuns: Math.max(1, Math.round(runs * scale)),
  });
}
