import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { zipSync, strToU8 } from "fflate";
import { apiRequest, makeTestContext, type TestContext } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { TTL_CEILING_SECONDS } from "@/lib/deploy/ttl";
import { errorStatus, type ErrorCode } from "@/lib/errors";
import { buildOpenApi } from "@/lib/openapi";
import { limits } from "@/lib/plans";

// The OpenAPI document (GET /openapi.json) is valid OpenAPI 3.1, names every endpoint of the
// contract and DESIGN.md with its bounds, and describes what the live handlers really answer:
// every success and error body below is validated against the document's schema for that
// path, method and status, and a status the document does not list fails the test.

type Json = Record<string, unknown>;
type RouteModule = Record<
  string,
  (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>
>;

const ROOT = path.resolve(import.meta.dirname, "../..");
const CRON_SECRET = "cron-secret-for-openapi-test";

let t: TestContext;
let oidc: OidcHarness;
let doc: Json;
let ajv: Ajv2020;
const validators = new Map<string, ValidateFunction>();
/** operation → statuses the tests saw, to report coverage. */
const seen = new Map<string, Set<number>>();

beforeAll(async () => {
  oidc = await startOidcProvider();
  t = await makeTestContext({
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: oidc.clientId,
    CRON_SECRET,
    RATE_LIMIT_DEPLOYS_PER_MINUTE: "30",
  });
  const route = (await import("@/app/openapi.json/route")) as unknown as RouteModule;
  const res = await route.GET!(apiRequest("/openapi.json"), { params: Promise.resolve({}) });
  expect(res.status).toBe(200);
  doc = (await res.json()) as Json;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // Component $refs ("#/components/schemas/X") resolve against this registered copy.
  ajv.addSchema(
    { $id: "https://openapi.dropsite.test/doc.json", components: doc.components },
    "https://openapi.dropsite.test/doc.json",
  );
}, 60_000);

afterAll(async () => {
  await t?.close();
  await oidc?.close();
});

const components = () => doc.components as { schemas: Record<string, Json>; responses: Record<string, Json> };
const rebase = (schema: unknown): Json =>
  JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', '"https://openapi.dropsite.test/doc.json#/components/'),
  ) as Json;

function operation(p: string, method: string): Json {
  const op = (doc.paths as Record<string, Record<string, Json>>)[p]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${p} is not in the document`);
  return op;
}

/** The documented response for a status, with a components/responses $ref followed. */
function documentedResponse(p: string, method: string, status: number): Json | undefined {
  const responses = operation(p, method).responses as Record<string, Json>;
  const r = responses[String(status)];
  if (!r) return undefined;
  if (typeof r.$ref === "string") return components().responses[r.$ref.split("/").pop()!];
  return r;
}

/** Failures whose body is not the error envelope: JSON-RPC bodies of /mcp, and /healthz's degraded 503. */
const notEnvelope = (p: string, status: number) => p === "/mcp" || (p === "/healthz" && status === 503);

/** Asserts that a live answer is documented for its operation and matches the schema. */
async function expectDocumented(p: string, method: string, res: Response): Promise<unknown> {
  const status = res.status;
  const text = await res.text();
  const key = `${method} ${p}`;
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(status);
  const documented = documentedResponse(p, method, status);
  expect(documented, `${key} answered ${status}, which the document does not list: ${text}`).toBeDefined();
  const content = documented!.content as Record<string, { schema: Json }> | undefined;
  if (!content) {
    expect(text, `${key} ${status} is documented without a body`).toBe("");
    return undefined;
  }
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const schema = content["application/json"]!.schema;
  const id = `${key} ${status}`;
  let validate = validators.get(id);
  if (!validate) {
    validate = ajv.compile(rebase(schema));
    validators.set(id, validate);
  }
  const body: unknown = JSON.parse(text);
  const ok = validate(body);
  expect(ok, `${id} body does not match the document: ${ajv.errorsText(validate.errors)}\n${text}`).toBe(true);
  // An envelope's code must be one the error table maps to this status.
  if (status >= 400 && !notEnvelope(p, status))
    expect(errorStatus[(body as { code: keyof typeof errorStatus }).code]).toBe(status);
  return body;
}

async function load(file: string): Promise<RouteModule> {
  return (await import(/* @vite-ignore */ path.join(ROOT, "app", file, "route.ts"))) as RouteModule;
}

/** Calls a live handler in-process and checks the answer against the document. */
async function call(
  p: string,
  method: string,
  opts: {
    params?: Record<string, string>;
    query?: string;
    headers?: Record<string, string>;
    body?: BodyInit;
    ip?: string;
  } = {},
): Promise<{ status: number; body: Json }> {
  const file = p.replace(/\{(\w+)\}/g, "[$1]").replace(/^\//, "");
  const mod = await load(file);
  const handler = mod[method];
  if (!handler) throw new Error(`app/${file}/route.ts has no ${method}`);
  let url = p;
  for (const [k, v] of Object.entries(opts.params ?? {})) url = url.replace(`{${k}}`, encodeURIComponent(v));
  const req = apiRequest(`${url}${opts.query ?? ""}`, { method, headers: opts.headers, body: opts.body, ip: opts.ip });
  const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
  const body = (await expectDocumented(p, method, res)) as Json;
  return { status: res.status, body };
}

const html = (ip = "198.51.100.1") => ({ headers: { "content-type": "text/html" }, body: "<h1>hi</h1>", ip });
const jsonBody = (value: unknown, headers: Record<string, string> = {}) => ({
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(value),
});

describe("the document", () => {
  it("is valid OpenAPI 3.1 with info.version 1.0.0", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect((doc.info as Json).version).toBe("1.0.0");
  });

  it("lists every endpoint of the contract and of DESIGN.md", () => {
    const expected = [
      "POST /deploy",
      "POST /deploy/{slug}",
      "GET /drops",
      "DELETE /drops/{slug}",
      "POST /keys",
      "GET /keys",
      "DELETE /keys/{id}",
      "GET /limits",
      "POST /claim",
      "GET /billing/me",
      "POST /billing/checkout",
      "POST /billing/portal",
      "POST /billing/webhook",
      "GET /vanity",
      "POST /vanity",
      "POST /mcp",
      "GET /cron/cleanup",
      "GET /cron/webhooks",
      "POST /webhooks",
      "GET /webhooks",
      "DELETE /webhooks/{id}",
      "GET /webhooks/{id}/deliveries",
    ];
    for (const e of expected) {
      const [method, p] = e.split(" ") as [string, string];
      expect(() => operation(p, method), e).not.toThrow();
    }
  });

  it("offers all three deploy body forms, FilesBody (or a ZipBody naming an uploaded zip) as a schema generated from zod", () => {
    for (const p of ["/deploy", "/deploy/{slug}"]) {
      const content = (operation(p, "POST").requestBody as Json).content as Record<string, Json>;
      expect(Object.keys(content).sort()).toEqual(["application/json", "application/zip", "text/html"]);
      expect(content["application/json"]!.schema).toEqual({
        anyOf: [{ $ref: "#/components/schemas/FilesBody" }, { $ref: "#/components/schemas/ZipBody" }],
      });
    }
    const zipBody = components().schemas.ZipBody as { required: string[]; properties: { zip: { required: string[] } } };
    expect(zipBody.required).toEqual(["zip"]);
    expect(zipBody.properties.zip.required.sort()).toEqual(["sha256", "size"]);
    const files = components().schemas.FilesBody as {
      required: string[];
      properties: { files: { additionalProperties: { anyOf: Json[] } } };
    };
    expect(files.required).toEqual(["files"]);
    // Text, base64, and a reference {sha256, size} to uploaded content (docs/uploads.md).
    expect(files.properties.files.additionalProperties.anyOf).toHaveLength(3);
  });

  it("carries the parameter bounds: ttl ≥ 60, the name pattern, limit 1–500, offset ≥ 0", () => {
    const param = (p: string, method: string, name: string) =>
      (operation(p, method).parameters as Json[]).find((x) => x.name === name)!.schema as Json;
    expect(param("/deploy", "POST", "ttl")).toMatchObject({ type: "integer", minimum: 60 });
    expect(param("/deploy", "POST", "name")).toMatchObject({ type: "string", pattern: "^[a-z0-9][a-z0-9-]{0,40}$" });
    expect(param("/drops", "GET", "limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 500, default: 100 });
    expect(param("/drops", "GET", "offset")).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    expect(param("/keys/{id}", "DELETE", "id")).toMatchObject({ pattern: "^[0-9a-f]{64}$" });
  });

  it("declares both Bearer schemes, and only the ID token can mint keys", () => {
    const schemes = components() as unknown as { securitySchemes: Record<string, Json> };
    expect(schemes.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.securitySchemes.idToken).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(operation("/keys", "POST").security).toEqual([{ idToken: [] }]);
    expect(operation("/deploy", "POST").security).toContainEqual({});
    expect(operation("/drops", "GET").security).not.toContainEqual({});
  });

  it("documents each error status with the envelope and the codes of that status", () => {
    for (const [code, status] of Object.entries(errorStatus)) {
      const r = components().responses[`Error${status}`] as { content: Record<string, { schema: { allOf: Json[] } }> };
      const [envelope, codes] = r.content["application/json"]!.schema.allOf as [
        Json,
        { properties: { code: { enum: string[] } } },
      ];
      expect(envelope).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
      expect(codes.properties.code.enum).toContain(code);
    }
    expect(components().responses.Error429!.headers).toHaveProperty("Retry-After");
    expect(operation("/deploy", "POST").responses).toHaveProperty("413");
  });

  it("states real bounds: no safe-integer limits from zod, ttl up to the 100-year ceiling", () => {
    expect(JSON.stringify(doc)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const ttl = (operation("/deploy", "POST").parameters as Json[]).find((x) => x.name === "ttl")!.schema as Json;
    expect(ttl).toMatchObject({ type: "integer", minimum: 60, maximum: TTL_CEILING_SECONDS });
  });

  it("lists per operation only the error codes it answers, with an example envelope for each", () => {
    const codesOf = (p: string, method: string, status: number) => {
      const r = documentedResponse(p, method, status) as
        | { content: Record<string, { schema: { allOf: Json[] }; examples: Record<string, { value: Json }> }> }
        | undefined;
      if (!r) return undefined;
      const media = r.content["application/json"]!;
      const codes = (media.schema.allOf[1] as { properties: { code: { enum: ErrorCode[] } } }).properties.code.enum;
      expect(Object.keys(media.examples).sort()).toEqual([...codes].sort());
      const validate = ajv.compile(rebase({ $ref: "#/components/schemas/ErrorEnvelope" }));
      for (const code of codes) {
        const example = media.examples[code]!.value;
        expect(example.code).toBe(code);
        expect(validate(example), `${p} ${code}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
      return codes;
    };
    expect(codesOf("/deploy", "POST", 400)?.sort()).toEqual([
      "file_cap_exceeded",
      "invalid_name",
      "invalid_request",
      "invalid_ttl",
      "invalid_zip",
    ]);
    expect(codesOf("/drops", "GET", 400)).toEqual(["invalid_request"]);
    expect(codesOf("/vanity", "POST", 409)).toEqual(["conflict"]);
    expect(codesOf("/drops", "GET", 402)).toBeUndefined();
    expect(codesOf("/claim", "POST", 410)).toEqual(["gone"]);
    for (const [p, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const method of Object.keys(methods)) {
        // /mcp fails with JSON-RPC bodies, and /healthz answers 503 with its own body.
        for (const status of Object.keys(operation(p, method).responses as Json)
          .map(Number)
          .filter((s) => s >= 400 && !notEnvelope(p, s)))
          codesOf(p, method, status);
      }
    }
  });

  it("gives an example for each JSON deploy body form, valid against FilesBody or ZipBody", () => {
    const media = (operation("/deploy", "POST").requestBody as Json).content as Record<
      string,
      { examples?: Record<string, { value: unknown }>; example?: unknown }
    >;
    expect(media["text/html"]!.example).toEqual(expect.any(String));
    const validate = ajv.compile(
      rebase({ anyOf: [{ $ref: "#/components/schemas/FilesBody" }, { $ref: "#/components/schemas/ZipBody" }] }),
    );
    const examples = Object.values(media["application/json"]!.examples ?? {});
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const e of examples) expect(validate(e.value), ajv.errorsText(validate.errors)).toBe(true);
  });

  it("takes servers from BASE_URL and every number in its texts from lib/plans.ts and the rate-limit table", () => {
    expect(doc.servers).toEqual([{ url: t.ctx.env.BASE_URL }]);
    const deploy = operation("/deploy", "POST").description as string;
    expect(deploy).toContain(`${limits.pro.filesPerRequest} (paid)`);
    expect(deploy).toContain("30 deploys per 60 seconds");
    const other = buildOpenApi({ BASE_URL: "https://drops.example.test", RATE_LIMIT_DEPLOYS_PER_MINUTE: 7 }) as {
      servers: Json[];
      paths: Record<string, Record<string, Json>>;
    };
    expect(other.servers).toEqual([{ url: "https://drops.example.test" }]);
    expect(other.paths["/deploy"]!.post!.description).toContain("7 deploys per 60 seconds");
  });

  it("every API route file in app/ is documented, and every documented path has a route", async () => {
    const files = (await readdir(path.join(ROOT, "app"), { recursive: true }))
      .map(String)
      .filter((f) => f.endsWith("route.ts"));
    const apiPaths = files
      // A catch-all under a documented path is its last parameter (a file's path, slashes included).
      .map((f) => `/${path.dirname(f).split(path.sep).join("/")}`.replace(/\[(?:\.\.\.)?(\w+)\]/g, "{$1}"))
      // Not the public API: the app's own catch-all (its 404s), the internal serve route, and the
      // browser's own cookie-authenticated routes (next-auth, the dashboard's drop zone), and the
      // pages of the docs (the interactive reference at /docs/api).
      .filter((p) => p !== "/{path}" && !p.includes("[") && !/^\/(api\/auth|dashboard|docs)(\/|$)/.test(p));
    const documented = Object.keys(doc.paths as Json);
    for (const p of apiPaths) expect(documented, `app${p}/route.ts`).toContain(p);
    for (const p of documented) {
      const file = path.join(ROOT, "app", p.replace(/\{(\w+)\}/g, "[$1]"), "route.ts");
      const catchAll = path.join(
        ROOT,
        "app",
        p.replace(/\{(\w+)\}$/, "[...$1]").replace(/\{(\w+)\}/g, "[$1]"),
        "route.ts",
      );
      expect(existsSync(file) || existsSync(catchAll), `${p} has no app/…/route.ts`).toBe(true);
    }
  });
});

describe("live handlers answer what the document says", () => {
  it("POST /deploy: three body forms, and its 400, 401, 402, 413, 429", async () => {
    const free = await accountWithKey(t.ctx, "free");
    const anon = await call("/deploy", "POST", html());
    expect(anon.status).toBe(200);
    expect(anon.body.claim_token).toEqual(expect.any(String));
    expect(
      (
        await call("/deploy", "POST", {
          ...jsonBody(
            { files: { "index.html": "x", "a.bin": { encoding: "base64", content: "AAEC" } } },
            bearer(free.apiKey),
          ),
          ip: "198.51.100.2",
        })
      ).status,
    ).toBe(200);
    const zip = zipSync({ "site/index.html": strToU8("<p>zip</p>") });
    expect(
      (await call("/deploy", "POST", { headers: { "content-type": "application/zip" }, body: zip, ip: "198.51.100.3" }))
        .status,
    ).toBe(200);
    expect((await call("/deploy", "POST", { ...html("198.51.100.4"), query: "?ttl=5" })).body.code).toBe("invalid_ttl");
    expect((await call("/deploy", "POST", { ...html("198.51.100.4"), query: "?name=site" })).body.code).toBe(
      "auth_required",
    );
    expect(
      (
        await call("/deploy", "POST", {
          ...html("198.51.100.4"),
          query: "?name=site",
          headers: { "content-type": "text/html", ...bearer(free.apiKey) },
        })
      ).body.code,
    ).toBe("subscription_required");
    expect(
      (
        await call("/deploy", "POST", {
          headers: { "content-type": "application/zip" },
          body: "not a zip",
          ip: "198.51.100.4",
        })
      ).body.code,
    ).toBe("invalid_zip");
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, "x"]));
    expect((await call("/deploy", "POST", { ...jsonBody({ files: many }), ip: "198.51.100.5" })).body.code).toBe(
      "file_cap_exceeded",
    );
    expect(
      (
        await call("/deploy", "POST", {
          headers: { "content-type": "text/html" },
          body: "x".repeat(10 * 1024 * 1024 + 1),
          ip: "198.51.100.6",
        })
      ).body.code,
    ).toBe("payload_too_large");
    // Refused requests have their own budget; the deploy budget counts deploys that reach storage.
    for (let i = 0; i < 30; i++) expect((await call("/deploy", "POST", html("198.51.100.7"))).status).toBe(200);
    expect((await call("/deploy", "POST", html("198.51.100.7"))).body.code).toBe("rate_limited");
  });

  it("POST /deploy/{slug}: append, and its 400, 401, 402, 404", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const free = await accountWithKey(t.ctx, "free");
    const drop = await call("/deploy", "POST", {
      ...jsonBody({ files: { "index.html": "x" } }, bearer(pro.apiKey)),
      ip: "198.51.100.10",
    });
    const slug = drop.body.slug as string;
    const appended = await call("/deploy/{slug}", "POST", {
      params: { slug },
      ...jsonBody({ files: { "b.html": "b" } }, bearer(pro.apiKey)),
    });
    expect(appended.status).toBe(200);
    expect(appended.body.total_files).toBe(2);
    expect(
      (
        await call("/deploy/{slug}", "POST", {
          params: { slug },
          ...jsonBody({ files: { "b.html": "b" } }, bearer(pro.apiKey)),
        })
      ).status,
    ).toBe(400);
    expect(
      (await call("/deploy/{slug}", "POST", { params: { slug }, ...jsonBody({ files: { "c.html": "c" } }) })).status,
    ).toBe(401);
    expect(
      (
        await call("/deploy/{slug}", "POST", {
          params: { slug },
          ...jsonBody({ files: { "c.html": "c" } }, bearer(free.apiKey)),
        })
      ).status,
    ).toBe(402);
    const other = await accountWithKey(t.ctx, "pro");
    expect(
      (
        await call("/deploy/{slug}", "POST", {
          params: { slug },
          ...jsonBody({ files: { "c.html": "c" } }, bearer(other.apiKey)),
        })
      ).status,
    ).toBe(404);
  });

  it("POST /deploy/preflight, PUT /deploy/uploads/{token}/{sha256}, and a deploy by reference", async () => {
    const bytes = "<p>by reference</p>";
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const pre = await call(
      "/deploy/preflight",
      "POST",
      jsonBody({ files: { "index.html": { sha256, size: bytes.length } } }),
    );
    expect(pre.status).toBe(200);
    expect(pre.body.missing).toEqual([sha256]);
    const token = pre.body.upload_token as string;
    expect((await call("/deploy/preflight", "POST", jsonBody({ files: { "../x": { sha256, size: 1 } } }))).status).toBe(
      400,
    );
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, { sha256, size: 1 }]));
    expect((await call("/deploy/preflight", "POST", jsonBody({ files: many }))).body.code).toBe("file_cap_exceeded");
    expect(
      (await call("/deploy/preflight", "POST", jsonBody({ files: { "big.bin": { sha256, size: 2 ** 40 } } }))).status,
    ).toBe(413);
    expect(
      (
        await call(
          "/deploy/preflight",
          "POST",
          jsonBody({ files: { "a.txt": { sha256, size: 1 } } }, bearer("sp_" + "x".repeat(40))),
        )
      ).status,
    ).toBe(401);
    const put = (body: string, sha = sha256) =>
      call("/deploy/uploads/{token}/{sha256}", "PUT", {
        params: { token, sha256: sha },
        headers: { "content-type": "application/octet-stream" },
        body,
      });
    expect((await put("wrong")).status).toBe(400);
    expect((await put(bytes, "0".repeat(64))).status).toBe(404);
    expect((await put(bytes)).status).toBe(201);
    const deployed = await call("/deploy", "POST", {
      ...jsonBody({ files: { "index.html": { sha256, size: bytes.length } } }, { "x-upload-token": token }),
      ip: "198.51.100.12",
    });
    expect(deployed.status).toBe(200);
  });

  it("GET /drops and DELETE /drops/{slug}", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const drop = await call("/deploy", "POST", {
      headers: { "content-type": "text/html", ...bearer(a.apiKey) },
      body: "x",
      ip: "198.51.100.11",
    });
    const list = await call("/drops", "GET", { headers: bearer(a.apiKey), query: "?limit=10" });
    expect(list.body.total).toBe(1);
    expect((await call("/drops", "GET", { headers: bearer(a.apiKey), query: "?limit=501" })).status).toBe(400);
    expect((await call("/drops", "GET")).status).toBe(401);
    expect(
      (await call("/drops/{slug}", "DELETE", { params: { slug: drop.body.slug as string }, headers: bearer(a.apiKey) }))
        .body,
    ).toEqual({ deleted: drop.body.slug });
    expect(
      (await call("/drops/{slug}", "DELETE", { params: { slug: drop.body.slug as string }, headers: bearer(a.apiKey) }))
        .status,
    ).toBe(404);
    expect((await call("/drops/{slug}", "DELETE", { params: { slug: "x" } })).status).toBe(401);
  });

  it("POST /claim: 200, 400, 401, 404, 410, 429", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const first = await call("/deploy", "POST", html("198.51.100.12"));
    const claimed = await call("/claim", "POST", {
      ...jsonBody({ slug: first.body.slug, claim_token: first.body.claim_token }, bearer(a.apiKey)),
      ip: "198.51.100.13",
    });
    expect(claimed.status).toBe(200);
    expect(
      (
        await call("/claim", "POST", {
          ...jsonBody({ slug: first.body.slug, claim_token: first.body.claim_token }, bearer(a.apiKey)),
          ip: "198.51.100.13",
        })
      ).status,
    ).toBe(404);
    expect(
      (await call("/claim", "POST", { ...jsonBody({ slug: 1 }, bearer(a.apiKey)), ip: "198.51.100.13" })).status,
    ).toBe(400);
    expect(
      (await call("/claim", "POST", { ...jsonBody({ slug: "x", claim_token: "y" }), ip: "198.51.100.13" })).status,
    ).toBe(401);
    const late = await call("/deploy", "POST", html("198.51.100.12"));
    t.clock.advance(61 * 86_400);
    expect(
      (
        await call("/claim", "POST", {
          ...jsonBody({ slug: late.body.slug, claim_token: late.body.claim_token }, bearer(a.apiKey)),
          ip: "198.51.100.14",
        })
      ).status,
    ).toBe(410);
    let last = 0;
    for (let i = 0; i < 11; i++)
      last = (
        await call("/claim", "POST", {
          ...jsonBody({ slug: "x", claim_token: "y" }, bearer(a.apiKey)),
          ip: "198.51.100.15",
        })
      ).status;
    expect(last).toBe(429);
  });

  it("keys: POST /keys with an ID token, GET /keys, DELETE /keys/{id}", async () => {
    const idToken = await oidc.mintIdToken({
      sub: "openapi-user",
      email: "openapi@example.test",
      iat: new Date(t.clock.now),
    });
    const minted = await call("/keys", "POST", jsonBody({ note: "ci" }, bearer(idToken)));
    expect(minted.status).toBe(201);
    const apiKey = minted.body.apiKey as string;
    expect((await call("/keys", "POST", { headers: bearer(apiKey) })).status).toBe(401);
    expect((await call("/keys", "POST", jsonBody({ note: 5 }, bearer(idToken)))).status).toBe(400);
    const list = await call("/keys", "GET", { headers: bearer(apiKey) });
    expect((list.body.keys as unknown[]).length).toBe(1);
    expect((await call("/keys", "GET")).status).toBe(401);
    expect(
      (await call("/keys/{id}", "DELETE", { params: { id: "0".repeat(64) }, headers: bearer(apiKey) })).status,
    ).toBe(404);
    expect(
      (await call("/keys/{id}", "DELETE", { params: { id: minted.body.keyId as string }, headers: bearer(apiKey) }))
        .status,
    ).toBe(200);
    expect((await call("/keys", "GET", { headers: bearer(apiKey) })).status).toBe(401);
  });

  it("GET /limits anonymously, with a key, and with a bad key", async () => {
    const a = await accountWithKey(t.ctx, "team");
    expect((await call("/limits", "GET")).body.plan).toBe("anonymous");
    expect((await call("/limits", "GET", { headers: bearer(a.apiKey) })).body.plan).toBe("team");
    expect((await call("/limits", "GET", { headers: bearer(`sp_${"x".repeat(43)}`) })).status).toBe(401);
  });

  it("billing routes (no payment provider configured) answer documented statuses", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const me = await call("/billing/me", "GET", { headers: bearer(a.apiKey) });
    expect(me.status).toBe(200);
    expect(me.body.plan).toBe("free");
    expect((await call("/billing/me", "GET")).status).toBe(401);
    await call("/billing/checkout", "POST", jsonBody({ plan: "team" }, bearer(a.apiKey)));
    expect(
      (await call("/billing/checkout", "POST", jsonBody({ plan: "gold" }, bearer(a.apiKey)))).status,
    ).toBeGreaterThanOrEqual(400);
    await call("/billing/portal", "POST", { headers: bearer(a.apiKey) });
    await call("/billing/webhook", "POST", jsonBody({ id: "evt_1" }, { "stripe-signature": "t=1,v1=00" }));
  });

  it("GET and POST /vanity: 200, 201, 400, 401, 402, 409", async () => {
    const team = await accountWithKey(t.ctx, "team");
    const team2 = await accountWithKey(t.ctx, "team");
    const free = await accountWithKey(t.ctx, "free");
    expect((await call("/vanity", "GET", { headers: bearer(team.apiKey) })).body).toEqual({ sub: null });
    expect((await call("/vanity", "GET")).status).toBe(401);
    expect((await call("/vanity", "POST", jsonBody({ sub: "a--b" }, bearer(team.apiKey)))).status).toBe(400);
    expect((await call("/vanity", "POST", jsonBody({ sub: "acme" }, bearer(free.apiKey)))).status).toBe(402);
    expect((await call("/vanity", "POST", jsonBody({ sub: "acme" }, bearer(team.apiKey)))).status).toBe(201);
    expect((await call("/vanity", "POST", jsonBody({ sub: "acme" }, bearer(team2.apiKey)))).status).toBe(409);
  });

  it.skipIf(!existsSync(path.join(ROOT, "app/mcp/route.ts")))("POST /mcp answers JSON-RPC as documented", async () => {
    await call(
      "/mcp",
      "POST",
      jsonBody({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    );
    await call("/mcp", "POST", jsonBody([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]));
    await call("/mcp", "POST", { headers: { "content-type": "application/json" }, body: "{" });
  });

  it("GET /cron/cleanup with and without the secret", async () => {
    expect((await call("/cron/cleanup", "GET", { headers: bearer(CRON_SECRET) })).body).toMatchObject({
      purged: expect.any(Number),
    });
    expect((await call("/cron/cleanup", "GET", { headers: bearer("wrong") })).status).toBe(401);
  });

  it("GET /healthz answers its documented body", async () => {
    expect((await call("/healthz", "GET")).body).toMatchObject({ status: "ok", database: "ok", storage: "ok" });
  });

  it("GET /openapi.json is itself documented", async () => {
    expect((await call("/openapi.json", "GET")).status).toBe(200);
  });
});

describe("the interactive reference", () => {
  it("GET /docs/api is an HTML page rendered from /openapi.json with Scalar's script from the app itself", async () => {
    const { GET } = await import("@/app/docs/api/route");
    const res = await GET();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain("dropsite API reference");
    expect(page).toMatch(/"url":\s*"\/openapi\.json"/);
    // Every script is the app's own: the bundle by a relative URL, the start-up script by nonce.
    const sources = [...page.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual([expect.stringMatching(/^\/docs\/api\/scalar\.js\?v=[0-9a-f]{16}$/)]);
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    for (const [tag] of page.matchAll(/<script[^>]*>/g)) expect(tag).toContain(`nonce="${nonce}"`);
    // A new nonce for every page.
    expect((await GET()).headers.get("content-security-policy")).not.toBe(csp);
  });

  it("GET /docs/api/scalar.js is Scalar's browser bundle, as JavaScript, cacheable by its hash", async () => {
    const { GET } = await import("@/app/docs/api/scalar.js/route");
    const res = await GET();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toContain("immutable");
    const script = await res.text();
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).toContain("createApiReference");
    const page = await (await (await import("@/app/docs/api/route")).GET()).text();
    expect(page).toContain(`/docs/api/scalar.js?v=${res.headers.get("etag")!.replaceAll('"', "")}`);
  });
});
