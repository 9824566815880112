// Every dropsite call the Action makes, through the project's typed client (client/: openapi-fetch
// over the OpenAPI document's types). A refusal becomes an ApiFailure carrying the API's own
// words: its message, code, hint and upgrade_url.
import { readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { createClient, type components, type DropsiteClient, type ErrorEnvelope, type paths } from "../../client";
import { collectFiles } from "../../cli/core/files";
import { deployByContent, sharedTopFolder, type HashedFile } from "../../lib/files/upload";

type DeployResponse = components["schemas"]["DeployResponse"];
type FilesBody = components["schemas"]["FilesBody"];
type PreflightBody = paths["/deploy/preflight"]["post"]["requestBody"]["content"]["application/json"];

/** A refusal of the dropsite API, in its own words. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly envelope: Partial<ErrorEnvelope>,
  ) {
    const e = envelope;
    super(
      [
        `${e.error ?? `dropsite answered HTTP ${status}`}${e.code ? ` (${e.code})` : ""}`,
        e.hint,
        e.upgrade_url ? `Upgrade: ${e.upgrade_url}` : undefined,
      ]
        .filter(Boolean)
        .join(" "),
    );
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ApiFailure with its envelope. */
function ok<T>(answer: Answer<T>): T {
  if (answer.error !== undefined || !answer.response.ok)
    throw new ApiFailure(answer.response.status, answer.error ?? {});
  return answer.data as T;
}

/** A deploy answer with the open review comments when the server counts them (absent: 0). */
export type Deployed = DeployResponse & { open_comments?: number };

interface LocalFile extends HashedFile {
  abs: string;
}

export class Dropsite {
  private readonly client: DropsiteClient;

  constructor(
    private readonly baseUrl: string,
    apiKey: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.client = createClient({ baseUrl: this.baseUrl, apiKey });
  }

  /**
   * Deploys a folder by content as the CLI does (lib/files/upload.ts): the files the CLI would
   * choose, hashed; the preflight names the contents the server lacks, only those are sent.
   */
  async deployFolder(
    dir: string,
    query: { name: string; promote?: "false"; alias?: string; render?: "1" },
  ): Promise<{ answer: Deployed; sent: number; unchanged: number; total: number }> {
    const found = await collectFiles(dir, {});
    if (found.length === 0) throw new Error(`Nothing to deploy in ${dir} (everything is empty or ignored).`);
    const strip = sharedTopFolder(found.map((f) => f.rel));
    const files: LocalFile[] = [];
    for (const f of found) {
      const data = await readFile(f.abs);
      files.push({
        path: f.rel.slice(strip.length),
        abs: f.abs,
        sha256: createHash("sha256").update(data).digest("hex"),
        size: data.byteLength,
      });
    }
    const outcome = await deployByContent<LocalFile, Deployed>(files, {
      preflight: async (body) =>
        ok(await this.client.POST("/deploy/preflight", { body: JSON.parse(body) as PreflightBody })),
      read: (file) => readFile(file.abs),
      upload: async (target, file) => this.upload(target, await readFile(file.abs)),
      deploy: async (body, uploadToken) =>
        ok(
          await this.client.POST("/deploy", {
            params: { query, header: { "X-Upload-Token": uploadToken } },
            body: JSON.parse(body) as FilesBody,
          }),
        ),
    });
    return { answer: outcome.result, sent: outcome.uploaded, unchanged: outcome.unchanged, total: files.length };
  }

  /** Sends one content to its upload target: the API's own route through the client; a storage URL as given. */
  private async upload(
    target: components["schemas"]["PreflightResponse"]["uploads"][number],
    bytes: Uint8Array<ArrayBuffer>,
  ): Promise<void> {
    const own = new RegExp(
      `^${this.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/deploy/uploads/([^/?#]+)/([0-9a-f]{64})$`,
    ).exec(target.url);
    if (own?.[1] && own[2]) {
      ok(
        await this.client.PUT("/deploy/uploads/{token}/{sha256}", {
          params: { path: { token: decodeURIComponent(own[1]), sha256: own[2] } },
          body: new Blob([bytes]),
          headers: target.headers,
        }),
      );
      return;
    }
    // A target straight at storage (a presigned URL) is not a dropsite route: sent as it is.
    const res = await fetch(target.url, { method: target.method, headers: target.headers, body: bytes });
    if (!res.ok) throw new Error(`The storage refused an upload (HTTP ${res.status}).`);
  }

  /** The drop's alias URL, from its aliases. */
  async aliasUrl(slug: string, alias: string): Promise<string | null> {
    const list = ok(await this.client.GET("/drops/{slug}/aliases", { params: { path: { slug } } }));
    return list.aliases.find((a) => a.name === alias)?.url ?? null;
  }

  /** The slug of the account's drop named `name`, or null. */
  async slugOf(name: string): Promise<string | null> {
    for (let offset = 0; ; offset += 500) {
      const page = ok(await this.client.GET("/drops", { params: { query: { limit: 500, offset } } }));
      const hit = page.drops.find((d) => d.name === name);
      if (hit) return hit.slug;
      if (page.drops.length < 500) return null;
    }
  }

  /** Deletes an alias; false when it did not exist. */
  async deleteAlias(slug: string, alias: string): Promise<boolean> {
    const answer = await this.client.DELETE("/drops/{slug}/aliases/{name}", {
      params: { path: { slug, name: alias } },
    });
    if (answer.response.status === 404) return false;
    ok(answer);
    return true;
  }

  /** Checks the key (GET /limits answers the anonymous limits without one, 401 for a bad one). */
  async namedDrops(): Promise<boolean> {
    return ok(await this.client.GET("/limits")).limits.named_drops;
  }

  /**
   * The API's own refusal of named drops on this key's plan (402 subscription_required with its
   * upgrade_url), asked without writing anything: the deploy route checks `name` against the
   * plan before it reads a body, and the body sent is empty. Null if the API did not refuse.
   */
  async namedDropsRefusal(): Promise<ApiFailure | null> {
    const answer = await this.client.POST("/deploy", {
      params: { query: { name: "dropsite-action" } },
      body: { files: {} },
    });
    return answer.response.status === 402 ? new ApiFailure(402, answer.error ?? {}) : null;
  }
}
