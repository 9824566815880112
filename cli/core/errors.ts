// The CLI's errors and exit codes: a CliError carries the exit code and the fields --json prints.
import type { z } from "zod";
import type { errorEnvelopeSchema } from "../../lib/schemas";

type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** Exit codes: documented in docs/cli.md. */
export const EXIT = { ok: 0, api: 1, usage: 2, network: 3 };

/** Fields printed with an error: the API's envelope, its status and client-side codes. */
type ErrorDetails = Partial<ErrorEnvelope> & { status?: number; retry_after?: number; code?: string };

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** fields for --json output */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}
