// The wall clock as Node has it. When Next loads it replaces `Date` and `Date.now` with wrappers
// that ask two AsyncLocalStorages, on every call, whether a prerender is reading the time
// (node_modules/next/dist/server/node-environment-extensions/date.js). The data plane's bundle
// is evaluated before Next loads (server.mjs), so there this is the original: the serve path
// reads the time on every request (the context's clock, the log line's time, the counts' day),
// and the wrapper was 0.8% of a busy server's time (docs/benchmarks.md).

/** Milliseconds since the epoch (Date.now as it was when this module was evaluated). */
export const wallClock: () => number = Date.now;
