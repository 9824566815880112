// The CLI's API: the typed client (client/: paths, parameters and bodies from the OpenAPI
// document) over the node:http transport, and its answers turned into data or a CliError
// carrying the error envelope, its status and Retry-After (exit code 1; an answer that is not
// the API's JSON exits 3). Upload targets' answers (the app's, Vercel Blob's or an S3 bucket's)
// are checked here too.
import type { IncomingMessage } from "node:http";
import { createClient, type DropsiteClient, type ErrorEnvelope } from "../../client";
import type { Target } from "./command";
import { CliError, EXIT } from "./errors";
import { nodeFetch, readText } from "./transport";

export { nodeFetch } from "./transport";

/** The typed client for a command's target: its API and key (none: anonymous). */
export function apiClient(target: Target): DropsiteClient {
  return createClient({ baseUrl: target.api, apiKey: target.key, fetch: nodeFetch() });
}

const badResponse = (status: number | undefined, text: string) =>
  new CliError(`Unexpected answer${status ? ` (HTTP ${status})` : ""}: ${text.slice(0, 200)}`, EXIT.network, {
    ...(status ? { status } : {}),
    code: "bad_response",
  });

/**
 * The CliError of an error answer: the API's envelope (or storage's own `{error: {code,
 * message}}`, as Vercel Blob answers, its code prefixed `storage_`), with the status and
 * Retry-After; a body that is not JSON is a bad response.
 */
function answerError(status: number, retryAfter: string | null | undefined, body: unknown): CliError {
  if (!body || typeof body !== "object") return badResponse(status, typeof body === "string" ? body : "");
  let envelope = body as Partial<ErrorEnvelope>;
  const nested: unknown = envelope.error;
  if (nested && typeof nested === "object") {
    const { code, message } = nested as Record<string, unknown>;
    envelope = {
      error: typeof message === "string" ? message : undefined,
      code: typeof code === "string" ? `storage_${code}` : undefined,
    };
  }
  const msg = typeof envelope.error === "string" ? envelope.error : `HTTP ${status}`;
  return new CliError(msg, EXIT.api, {
    status,
    ...envelope,
    ...(retryAfter ? { retry_after: Number(retryAfter) } : {}),
  });
}

/** What a typed call answers (openapi-fetch): `data` on 2xx, else `error` (the parsed body). */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a typed call; an error answer (or one that is not JSON) is thrown as a CliError. */
export async function answer<T>(pending: Promise<Answer<T>>): Promise<T> {
  let res: Answer<T>;
  try {
    res = await pending;
  } catch (err) {
    // openapi-fetch parses a 2xx body as JSON: one that is not is not the API's answer.
    if (err instanceof SyntaxError) throw badResponse(undefined, err.message);
    throw err;
  }
  if (!res.response.ok) throw answerError(res.response.status, res.response.headers.get("retry-after"), res.error);
  return res.data as T;
}

/**
 * The answer of an upload target: the app's (JSON), Vercel Blob's (JSON) or an S3 bucket's (an
 * empty 200, or an XML <Error> with a Code and a Message). Throws on an error answer.
 */
export async function checkUpload(res: IncomingMessage): Promise<void> {
  const status = res.statusCode ?? 0;
  const text = await readText(res);
  if (status < 300) return;
  const xml = /<Code>([^<]*)<\/Code>[\s\S]*?<Message>([^<]*)<\/Message>/.exec(text);
  if (xml) throw new CliError(`Storage refused the upload: ${xml[2]}`, EXIT.api, { status, code: `storage_${xml[1]}` });
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: a bad response */
  }
  const retryAfter = res.headers["retry-after"];
  throw answerError(status, typeof retryAfter === "string" ? retryAfter : undefined, body);
}
