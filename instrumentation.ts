// Next's instrumentation hook: runs once when a server instance starts (next start, server.mjs's
// Next, each Vercel function instance), before any request. It starts the Next side's traces
// when OTEL_EXPORTER_OTLP_ENDPOINT is set (lib/tracing: @vercel/otel, unless server.mjs already
// started the SDK; unset, nothing loads) and wires the webhooks' delivery right after a response
// (lib/webhooks/soon.ts) into the outbox; Node runtime only.

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ env }, { startNextTracing }] = await Promise.all([import("./lib/env"), import("./lib/tracing")]);
  // A configuration error is the first request's to report (as before), not the start's.
  const config = (() => {
    try {
      return env();
    } catch {
      return undefined;
    }
  })();
  if (config) await startNextTracing(config);
  const { deliverAfterResponses } = await import("./lib/webhooks/soon");
  deliverAfterResponses();
}
