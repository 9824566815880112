import { ApiError, upstreamUnavailable } from "../errors";

// The one mapping from database failures to the envelope. A value PostgreSQL refuses (SQLSTATE
// class 22, data exception: NUL bytes, invalid encodings, out-of-range numbers and dates; 54,
// program limits) is the caller's bad input: 400. A constraint the request broke (class 23) is
// 409. Everything else (connections, timeouts, a restarting server) is 503 with Retry-After.

/** The SQLSTATE of a driver error, looking through wrappers (drizzle, PGlite, node-postgres, Neon). */
export function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export function databaseError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const state = sqlState(err);
  if (state?.startsWith("22") || state?.startsWith("54")) {
    return new ApiError("invalid_request", "A value in this request cannot be stored.", {
      hint: "Identifiers and text must not contain NUL or other control characters; see the limits in the docs.",
      docs: "limits",
      cause: err,
    });
  }
  if (state?.startsWith("23")) {
    return new ApiError("conflict", "The request conflicts with the current state.", {
      hint: "Reload and retry.",
      cause: err,
    });
  }
  return upstreamUnavailable("database", err);
}

/** Runs a database step; its failure leaves as the mapped envelope error. */
export async function withDb<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw databaseError(err);
  }
}
