import { inSpan } from "../tracing";

// Database spans (lib/tracing): every query the driver runs for drizzle becomes a child span of
// the request (or delivery) that ran it, with db.system.name. Wrapped at the driver's query
// method, the one place drizzle sends SQL through (PGlite and its transactions; node-postgres'
// pool and the clients it hands out for transactions). With tracing off, inSpan only calls on.

interface Queryable {
  query: (...args: never[]) => Promise<unknown>;
}

function statement(args: unknown[]): string {
  const first = args[0];
  if (typeof first === "string") return first;
  if (first && typeof first === "object" && typeof (first as { text?: unknown }).text === "string")
    return (first as { text: string }).text;
  return "";
}

/** Wraps a driver object's query() so each call is a `db` span. */
export function traceQueries(client: Queryable): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  client.query = (...args: unknown[]) => {
    const text = statement(args);
    const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
    return inSpan(
      operation,
      { "db.system.name": "postgresql", "db.operation.name": operation, "db.query.text": text.slice(0, 2000) },
      () => query(...args),
      { kind: 2 /* SpanKind.CLIENT */ },
    );
  };
}

/** PGlite: its own query() and that of each transaction it opens. */
export function tracePglite(
  client: Queryable & { transaction: (fn: (tx: Queryable) => Promise<unknown>) => Promise<unknown> },
): void {
  traceQueries(client);
  const transaction = client.transaction.bind(client);
  client.transaction = (fn) =>
    transaction((tx) => {
      traceQueries(tx);
      return fn(tx);
    });
}
