// Next's instrumentation hook: runs once when a server instance starts (next start, server.mjs's
// Next, each Vercel function instance), before any request. It wires the webhooks' delivery
// right after a response (lib/webhooks/soon.ts) into the outbox; Node runtime only.

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { deliverAfterResponses } = await import("./lib/webhooks/soon");
  deliverAfterResponses();
}
