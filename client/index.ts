// The typed client of the dropsite API: `import { createClient } from "dropsite/client"`.
// openapi-fetch makes the calls; the types (client/schema.ts) are generated from the service's
// own OpenAPI document by openapi-typescript (`npm run client:types`), and a test fails when the
// two differ. Every call answers `{ data, error, response }`: `data` on 2xx, typed by the
// route's response schema, else `error`, the error envelope {error, code, hint?, ...}.
import createFetchClient, { defaultBodySerializer, type ClientOptions } from "openapi-fetch";
import type { components, paths } from "./schema";

export type { components, operations, paths } from "./schema";

/** The error envelope every failing route answers. */
export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

export interface DropsiteClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** The service's base URL, e.g. https://dropsite.example (no trailing slash needed). */
  baseUrl: string;
  /** An API key (sp_…): sent as `Authorization: Bearer` on every call. */
  apiKey?: string;
}

/**
 * Bodies as openapi-fetch serializes them (JSON), except a raw body (a zip, an HTML page, an
 * upload: typed `Blob`), sent as its bytes; give its Content-Type in `headers`.
 */
const serializeBody = (body: unknown): unknown => (body instanceof Blob ? body : defaultBodySerializer(body));

/**
 * A client for one deployment of the API. `GET`/`POST`/`PUT`/`PATCH`/`DELETE(path, {params,
 * body})` take the paths of the OpenAPI document with their parameters and bodies typed.
 */
export function createClient(options: DropsiteClientOptions) {
  const { baseUrl, apiKey, headers, ...rest } = options;
  const auth = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  return createFetchClient<paths>({
    bodySerializer: serializeBody,
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...auth, ...(headers as Record<string, string> | undefined) },
  });
}

export type DropsiteClient = ReturnType<typeof createClient>;
