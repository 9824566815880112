import type { Tool } from "@modelcontextprotocol/server";
import { withToolRender, type ImageBlock } from "./render";
import { z } from "zod";
import type { AppContext } from "../context";
import { ApiError, authRequired, toApiError } from "../errors";
import { optionalCaller, type Caller } from "../auth/caller";
import { guardAccountRoute } from "../auth/guard";
import { decodeFilesMap, tooLargeError } from "../deploy/body";
import { normalizeFiles, type InputFile } from "../deploy/paths";
import { checkDeployOptions, deployFiles, guardedDeploy, subscriptionRequired } from "../deploy/request";
import { reportLines, rulesLine } from "../deploy/report-text";
import { appendToDrop, tierOf } from "../deploy/store";
import { preflightFiles, uploadContent } from "../deploy/uploads";
import { issueDeployGrant, type DeployGrant } from "../deploy/grants";
import { deleteDrop, describeLimits, getDrop, listDrops } from "../drops/manage";
import { listDropVersions, rollbackToVersion } from "../drops/versions";
import { idempotencyCaller, parseIdempotencyKey, runIdempotent, toolCallFingerprint } from "../idempotency";
import { ACCESS_PASSWORD_MAX_CHARS, ACCESS_PASSWORD_MIN_CHARS, isPaid, limits, type Tier } from "../plans";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "../schemas";
import {
  accessResponseSchema,
  appendResponseSchema,
  deleteDropResponseSchema,
  domainDeleteResponseSchema,
  domainSchema,
  domainsListSchema,
  domainVerifyResponseSchema,
  deployResponseSchema,
  dropDetailSchema,
  limitsResponseSchema,
  listDropsResponseSchema,
  preflightResponseSchema,
  rollbackResponseSchema,
  uploadResponseSchema,
  versionsListSchema,
  webhookCreatedSchema,
  webhookDeletedSchema,
  webhooksListSchema,
  type DeployResponse,
} from "../schemas";
import { createWebhook, listWebhooks, removeWebhook } from "../webhooks/manage";
import { openSecret, sealSecret } from "../webhooks/secret";
import { WEBHOOK_EVENT_TYPES } from "../patterns";
import { forMcp } from "./hints";
import { previewToolMeta, QR_META_KEY, qrModules } from "./preview";
import { clientAddress } from "../ratelimit/address";
import { authorizeDevice, pollDevice } from "../device/flow";
import {
  appendFilesArgs,
  deleteDropArgs,
  addDomainArgs,
  domainArgs,
  listDomainsArgs,
  deployFilesArgs,
  deployDirectoryArgs,
  deployGrantSchema,
  deployHtmlArgs,
  deployNamedArgs,
  GRANT_RULE,
  preflightFilesArgs,
  uploadContentArgs,
  deviceAuthorizationSchema,
  deviceAuthorizeArgs,
  deviceTokenArgs,
  deviceTokenSchema,
  getDropArgs,
  getLimitsArgs,
  listDropsArgs,
  listVersionsArgs,
  rollbackDropArgs,
  setAccessArgs,
  TTL_RULE,
  VERSIONS_RULE,
  addWebhookArgs,
  listWebhooksArgs,
  removeWebhookArgs,
} from "./schemas";
import { setAccess } from "../drops/access";
import { createDomain, deleteDomain, listDomains, verifyDomain } from "../domains/manage";

// The MCP tools: thin adapters over the same lib/ services as the REST routes. A tool that runs
// and fails (limits, plan gates, bad arguments, auth) answers a result with isError: true whose
// text an agent can relay (code, error, hint, upgrade and docs URLs).

export interface ToolCall {
  ctx: AppContext;
  req: Request;
  /** Arguments exactly as parsed from the request JSON (not a zod copy). */
  raw: Record<string, unknown>;
}

interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

interface ToolDef<I extends z.ZodType, O extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Annotations;
  /** Whether a host with MCP Apps shows the deploy preview (lib/mcp/preview.ts) beside the result. */
  preview?: true;
  /**
   * A result field holding a secret shown once (add_webhook's signing secret): kept for an
   * idempotent replay only sealed, as the webhooks table keeps it (lib/webhooks/secret.ts).
   */
  sealed?: "secret";
  run(args: z.infer<I>, call: ToolCall): Promise<{ structured: z.infer<O>; text: string; image?: ImageBlock }>;
}

function tool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

const CLAIM_TEXT = (base: string, d: DeployResponse) =>
  `This drop is anonymous: it is online for 30 days, then claimable for 30 more. To keep it, your human logs in at ${base} and claims it with slug ${d.slug} and claim_token ${d.claim_token} ` +
  `(or sends POST ${base}/claim with their credential and {"slug": "${d.slug}", "claim_token": "${d.claim_token}"}). The token works once; keep it private.`;

/** Report entries in a tool's text; structuredContent carries the whole report. */
const REPORT_TEXT_ENTRIES = 10;
const REPORT_WHERE = "structuredContent.report lists them";

function deployText(ctx: AppContext, d: DeployResponse): string {
  const lines = [
    d.unchanged
      ? `Unchanged: the files equal the live version ${d.version} of ${d.url}; nothing was written.`
      : `Deployed ${d.files.length} file${d.files.length === 1 ? "" : "s"}: ${d.url} (version ${d.version})`,
  ];
  if (d.name)
    lines.push(
      `Named drop "${d.name}"${d.replaced ? " (content replaced, same URL; the previous version is kept for rollback_drop)" : ""}.`,
    );
  lines.push(d.expires_at ? `Expires at ${d.expires_at}.` : "Never expires.");
  if (d.claim_token) lines.push(CLAIM_TEXT(ctx.env.BASE_URL, d));
  lines.push(...reportLines(d.report, REPORT_TEXT_ENTRIES, REPORT_WHERE));
  return lines.join("\n");
}

function caller(call: ToolCall): Promise<Caller> {
  return optionalCaller(call.ctx, call.req);
}

async function accountCaller(call: ToolCall) {
  const c = await caller(call);
  if (!c.account) throw authRequired();
  await guardAccountRoute(call.ctx, c);
  return c as Caller & { account: NonNullable<Caller["account"]> };
}

/**
 * Every deploy tool, under the deploy guard shared with REST: only a deploy that reaches storage
 * spends the per-address deploy budget; a call refused for its input counts against the higher
 * deployInvalid budget.
 */
async function runDeploy(
  args: { name?: string; ttl?: number; upload_token?: string; render_check?: boolean },
  call: ToolCall,
  filesFor: (tier: Tier) => InputFile[],
) {
  return guardedDeploy(call.ctx, call.req, async (quota) => {
    const c = await caller(call);
    const opts = {
      ttl: args.ttl === undefined ? null : String(args.ttl),
      name: args.name ?? null,
      uploadToken: args.upload_token ?? null,
    };
    checkDeployOptions(c, opts);
    const d = await deployFiles(call.ctx, c, opts, normalizeFiles(filesFor(tierOf(c))), quota);
    return withToolRender(call, args.render_check, { structured: d, text: deployText(call.ctx, d) });
  });
}

/** The raw files map (not zod's copy: a "__proto__" path must be refused, not dropped). */
const rawFiles = (call: ToolCall) => (tier: Tier) => decodeFilesMap(call.raw.files, limits[tier], isPaid(tier));

const REPORT_NOTE =
  "The result's report lists referenced files the drop lacks and warnings (likely secrets, no index.html, large files): fix them and deploy again.";

function grantText(g: DeployGrant): string {
  return [
    `One-time deploy URL (expires ${g.expires_at}): ${g.url}`,
    "With a shell, run either:",
    `  ${g.commands.npx}`,
    "or zip the folder and send it:",
    `  ${g.commands.zip}`,
    `  ${g.commands.curl}`,
    `The answer is the deploy's JSON (url, and a claim_token when anonymous). ${GRANT_RULE}`,
  ].join("\n");
}

const ANON =
  "Without an API key the drop is anonymous: it lives 30 days and the result carries a claim_token the user needs to keep it; with a key (Authorization: Bearer sp_…) it belongs to that account.";

/** A new drop at a new URL: nothing existing changes, so not destructive; not idempotent (each call makes a drop). */
const CREATES: Annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};
const READS: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const tools = [
  tool({
    name: "deploy_html",
    title: "Publish an HTML page",
    description: `Publish one HTML document as a new website at a new URL and return the URL. It is served as index.html at https://<slug>.<serve domain>/. ${ANON} ${TTL_RULE}`,
    input: deployHtmlArgs,
    output: deployResponseSchema,
    annotations: CREATES,
    preview: true,
    run: (args, call) =>
      runDeploy(args, call, (tier) => {
        const bytes = new TextEncoder().encode(args.html);
        if (bytes.byteLength > limits[tier].bodyBytes) {
          throw tooLargeError(
            `The html is ${bytes.byteLength} bytes; pages are limited to ${Math.round(limits[tier].bodyBytes / 1048576)} MB.`,
            isPaid(tier),
            { limit: "body_bytes", allowed: limits[tier].bodyBytes },
          );
        }
        return [{ path: "index.html", bytes }];
      }),
  }),
  tool({
    name: "deploy_files",
    title: "Publish a set of files",
    description:
      `Publish a static site from a map of relative paths to contents as a new website at a new URL. Values are text, or {"encoding": "base64", "content": "…"} for binary files (images, fonts). ` +
      `A value may also be {"sha256", "size"} of a content stored with preflight_files/upload_content, so a redeploy sends only what changed (anonymous callers add upload_token). ` +
      `index.html is served at /; /about serves about.html or about/index.html; a 404.html is used for missing paths. ${ANON} To update a site at a stable URL, use deploy_named (paid plans). For a whole local folder, deploy_directory. ${REPORT_NOTE}`,
    input: deployFilesArgs,
    output: deployResponseSchema,
    annotations: CREATES,
    preview: true,
    run: (args, call) => runDeploy(args, call, rawFiles(call)),
  }),
  tool({
    name: "deploy_named",
    title: "Publish or replace a named site",
    description:
      "Publish files under a stable name (paid plans, needs a key). The first call with a name creates the drop; later calls with the same name replace ALL its files and keep its URL " +
      "(each replace is a new version; list_versions and rollback_drop bring an earlier one back; files equal to the live version change nothing). " +
      "Files as in deploy_files.",
    input: deployNamedArgs,
    output: deployResponseSchema,
    // Replacing a named drop's content changes what its URL serves (the previous version stays for
    // rollback_drop, within the plan's versions kept); the same call twice is unchanged the second time.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    preview: true,
    run: (args, call) => runDeploy(args, call, rawFiles(call)),
  }),
  tool({
    name: "append_files",
    title: "Add files to a drop",
    description:
      "Add new files to one of the account's drops (paid plans, needs a key), e.g. the rest of a site too large for one call. Existing paths are refused, never overwritten. Returns the added paths and the new total.",
    input: appendFilesArgs,
    output: appendResponseSchema,
    // A repeat of the same call adds nothing: its paths exist by then, and existing paths are refused.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async run(args, call) {
      const c = await accountCaller(call);
      const tier = tierOf(c);
      if (!isPaid(tier)) throw subscriptionRequired("Appends");
      const files = normalizeFiles(rawFiles(call)(tier));
      const r = await appendToDrop(call.ctx, c, args.slug, files);
      return withToolRender(call, args.render_check, {
        structured: r,
        text: [
          `Added ${r.files.length} file${r.files.length === 1 ? "" : "s"} to ${r.url} (now ${r.total_files}; version ${r.version}).`,
          ...reportLines(r.report, REPORT_TEXT_ENTRIES, REPORT_WHERE),
        ].join("\n"),
      });
    },
  }),
  tool({
    name: "preflight_files",
    title: "Check which files need uploading",
    description:
      "Before deploying by reference: send every file's path, SHA-256 and size; the answer lists the hashes this server does not have for you (missing), an upload_token, and for agents with a shell a PUT target per missing content. " +
      "Send each missing content with upload_content (or PUT its raw bytes to its target), then deploy_files / deploy_named / append_files with {sha256, size} values. Unchanged files are never sent again. Paths and file counts are checked as on a deploy.",
    input: preflightFilesArgs,
    output: preflightResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(_args, call) {
      const c = await caller(call);
      const p = await preflightFiles(call.ctx, c, call.raw.files, clientAddress(call.req, call.ctx.env));
      const total = Object.keys(call.raw.files as object).length;
      return {
        structured: p,
        text: [
          `${p.missing.length} content${p.missing.length === 1 ? "" : "s"} missing of ${total} file${total === 1 ? "" : "s"}; upload_token ${p.upload_token} (expires ${p.expires_at}).`,
          ...(p.missing.length
            ? [
                "Send each with upload_content {sha256, content, upload_token}, or with a shell PUT the file's bytes to its url with its headers (structuredContent.uploads):",
                ...p.uploads.map((u) => `- ${u.sha256} → ${u.url}`),
              ]
            : ["Nothing to upload: deploy with {sha256, size} values now."]),
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "upload_content",
    title: "Upload one file's content",
    description:
      "Send one content that preflight_files reported missing, as text or base64, with its SHA-256: the bytes are checked (size and hash) and stored for you; a mismatch stores nothing. " +
      "Then refer to it as {sha256, size} in deploy_files / deploy_named / append_files. Without an API key pass the preflight's upload_token (and pass it to deploy_files too).",
    input: uploadContentArgs,
    output: uploadResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await caller(call);
      const value = (call.raw as { content: unknown }).content;
      const [decoded] = decodeFilesMap({ content: value }, limits[tierOf(c)], isPaid(tierOf(c)));
      const r = await uploadContent(
        call.ctx,
        c,
        { sha256: args.sha256, bytes: decoded!.bytes, uploadToken: args.upload_token },
        clientAddress(call.req, call.ctx.env),
      );
      return {
        structured: r,
        text: `Stored ${r.sha256} (${r.size} bytes). Deploy it as {"sha256": "${r.sha256}", "size": ${r.size}}.`,
      };
    },
  }),
  tool({
    name: "deploy_directory",
    title: "Publish a local folder with a shell command",
    description:
      "For a folder too large to paste, when you can run shell commands: returns a one-time deploy URL and ready commands — `npx dropsite deploy <dir> --grant <url>` (uploads only what the server lacks), or a zip of the folder sent with curl. " +
      `The bytes go from the shell to the server, not through this conversation. The deploy is made as you (your key's account, or anonymous with a claim_token) with the ttl and name given here. ${GRANT_RULE} ` +
      "With a name (paid plans) the deploy replaces that named drop's files.",
    input: deployDirectoryArgs,
    output: deployGrantSchema,
    // Issuing the URL changes nothing; the command it returns creates a drop (or, with a name, replaces one).
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(args, call) {
      const c = await caller(call);
      checkDeployOptions(c, { ttl: args.ttl === undefined ? null : String(args.ttl), name: args.name ?? null });
      const g = await issueDeployGrant(call.ctx, call.req, c, { dir: args.dir, ttl: args.ttl, name: args.name });
      return { structured: g, text: grantText(g) };
    },
  }),
  tool({
    name: "list_drops",
    title: "List my drops",
    description: `List the drops of the account whose API key is sent, newest first, with URL, name, file count and expiry. Pages with limit (1–${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}) and offset. Requires a key.`,
    input: listDropsArgs,
    output: listDropsResponseSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const page = await listDrops(call.ctx, c.account, {
        limit: args.limit ?? LIST_LIMIT_DEFAULT,
        offset: args.offset ?? 0,
      });
      const lines = page.drops.map(
        (d) =>
          `- ${d.slug}${d.name ? ` (${d.name})` : ""}: ${d.url} · ${d.file_count} files · ${d.expires_at ? `expires ${d.expires_at}` : "no expiry"}`,
      );
      return {
        structured: page,
        text: [
          `${page.total} drop${page.total === 1 ? "" : "s"} in this account; showing ${page.drops.length}.`,
          ...lines,
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "get_drop",
    title: "Show one drop",
    description:
      "Show one of the account's drops by slug: URL, name, plan, expiry, its files with sizes and content types (up to 1000), and its site rules (_redirects and _headers, with counts). Requires a key.",
    input: getDropArgs,
    output: dropDetailSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const d = await getDrop(call.ctx, c.account, args.slug);
      const lines = d.files.map((f) => `- ${f.path} (${f.size} bytes, ${f.content_type})`);
      return {
        structured: d,
        text: [
          `${d.url}${d.name ? ` (${d.name})` : ""} · plan ${d.plan} · access ${d.access} · ${d.file_count} files, ${d.total_bytes} bytes · ${d.expires_at ? `expires ${d.expires_at}` : "no expiry"}`,
          ...lines,
          ...(d.files_truncated ? ["(more files not listed)"] : []),
          ...[rulesLine(d)].filter((l) => l !== undefined),
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "list_versions",
    title: "List a drop's versions",
    description: `List the retained versions of one of the account's drops, newest first: number, time, file count, size, kind (deploy, replace, append) and which one is live; rollback_drop makes one live. ${VERSIONS_RULE} Requires a key.`,
    input: listVersionsArgs,
    output: versionsListSchema,
    annotations: READS,
    async run(args, call) {
      const c = await accountCaller(call);
      const v = await listDropVersions(call.ctx, c.account, args.slug, {
        limit: args.limit ?? LIST_LIMIT_DEFAULT,
        offset: args.offset ?? 0,
      });
      const lines = v.versions.map(
        (x) =>
          `- version ${x.version}${x.live ? " (live)" : ""}: ${x.kind} at ${x.created_at} · ${x.file_count} files, ${x.total_bytes} bytes`,
      );
      return {
        structured: v,
        text: [
          `${v.total} retained version${v.total === 1 ? "" : "s"}; live version ${v.live_version}.`,
          ...lines,
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "rollback_drop",
    title: "Roll a drop back (or forward) to a version",
    description: `Make a retained version of one of the account's drops live again (list_versions shows them): a pointer move, served at once. Works forwards too; the next deploy_named or append_files builds on the live version. ${VERSIONS_RULE} Requires a key. An unknown or pruned version answers not_found.`,
    input: rollbackDropArgs,
    output: rollbackResponseSchema,
    // Replaces what the drop serves; the same call twice leaves the same version live.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await rollbackToVersion(call.ctx, c.account, args.slug, args.version);
      return { structured: r, text: `${r.url} now serves version ${r.live_version}.` };
    },
  }),
  tool({
    name: "delete_drop",
    title: "Delete a drop",
    description:
      "Delete one of the account's drops by slug: its files and URL are removed for good (edge caches may serve it for up to 60 s). Requires a key. Drops of other accounts answer not_found.",
    input: deleteDropArgs,
    output: deleteDropResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await deleteDrop(call.ctx, c.account, args.slug);
      return { structured: r, text: `Deleted drop ${r.deleted}.` };
    },
  }),
  tool({
    name: "set_access",
    title: "Protect a drop with a password, or make it public",
    description:
      `Set who may see one of the account's drops: mode "password" with a password (${ACCESS_PASSWORD_MIN_CHARS}–${ACCESS_PASSWORD_MAX_CHARS} characters) shows visitors a password form on every path until they enter it; mode "public" opens it to anyone with the URL. ` +
      "Every call signs out every visitor who unlocked it before. Any plan; anonymous drops cannot be protected (claim them first). Requires a key. The password is never returned: tell your human what you set.",
    input: setAccessArgs,
    output: accessResponseSchema,
    // It replaces the drop's policy and signs every visitor out: destructive, and not idempotent.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await setAccess(
        call.ctx,
        c.account,
        args.slug,
        args.password === undefined ? { mode: args.mode } : { mode: args.mode, password: args.password },
      );
      return {
        structured: r,
        text:
          r.mode === "password"
            ? `Drop ${r.slug} is now password-protected; visitors see a password form. Earlier unlocks no longer work.`
            : `Drop ${r.slug} is now public: anyone with its URL can see it.`,
      };
    },
  }),
  tool({
    name: "add_webhook",
    title: "Add a webhook",
    description:
      `Have the account's changes POSTed to a URL, signed by the Standard Webhooks scheme: ${WEBHOOK_EVENT_TYPES.join(", ")} (all of them unless events lists some). ` +
      `The url must be https and public. The result carries the signing secret (whsec_…) once: give it to the receiver's owner, it cannot be shown again. ` +
      `At most ${limits.free.maxWebhooks} webhooks on free, ${limits.pro.maxWebhooks} on pro, ${limits.team.maxWebhooks} on team. Requires a key.`,
    input: addWebhookArgs,
    output: webhookCreatedSchema,
    // A new webhook; each call adds another (with its own secret).
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    sealed: "secret",
    async run(args, call) {
      const c = await accountCaller(call);
      const w = await createWebhook(call.ctx, c.account, {
        url: args.url,
        ...(args.events ? { events: args.events } : {}),
      });
      return {
        structured: w,
        text: `Webhook ${w.id} added: ${w.url} receives ${w.events.join(", ")}.\nSigning secret (shown once; verify with the standardwebhooks package): ${w.secret}`,
      };
    },
  }),
  tool({
    name: "list_webhooks",
    title: "List my webhooks",
    description:
      "List the account's webhooks: id, URL and the events each receives (never their secrets). Requires a key.",
    input: listWebhooksArgs,
    output: webhooksListSchema,
    annotations: READS,
    async run(_args, call) {
      const c = await accountCaller(call);
      const l = await listWebhooks(call.ctx, c.account);
      const lines = l.webhooks.map(
        (w) =>
          `- ${w.id}: ${w.url} (${w.events.length === WEBHOOK_EVENT_TYPES.length ? "all events" : w.events.join(", ")})`,
      );
      return {
        structured: l,
        text: [`${l.webhooks.length} webhook${l.webhooks.length === 1 ? "" : "s"}.`, ...lines].join("\n"),
      };
    },
  }),
  tool({
    name: "remove_webhook",
    title: "Remove a webhook",
    description:
      "Remove one of the account's webhooks by id: it receives nothing more, and what it was still owed is dropped. Requires a key. Other accounts' webhooks answer not_found.",
    input: removeWebhookArgs,
    output: webhookDeletedSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await removeWebhook(call.ctx, c.account, args.id);
      return { structured: r, text: `Removed webhook ${r.deleted}.` };
    },
  }),
  tool({
    name: "add_domain",
    title: "Serve a drop at a custom domain",
    description:
      `Add a custom domain (e.g. docs.example.com) for one of the account's drops (Team plan, up to ${limits.team.maxDomains}). The result names two DNS records for your human to publish: ` +
      "a TXT record (verification.name, verification.value) that proves they control the name, and a CNAME from the hostname to target.value. Then call verify_domain. Requires a key.",
    input: addDomainArgs,
    output: domainSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const d = await createDomain(call.ctx, c.account, args);
      return {
        structured: d,
        text: [
          `Domain ${d.hostname} added for drop ${d.slug}; status ${d.status}. Ask your human to publish these DNS records, then call verify_domain:`,
          `  TXT   ${d.verification.name}   "${d.verification.value}"`,
          `  CNAME ${d.hostname}   ${d.target.value}`,
        ].join("\n"),
      };
    },
  }),
  tool({
    name: "verify_domain",
    title: "Check a custom domain's DNS record",
    description:
      "Look up the TXT record of one of the account's custom domains: status becomes active (the drop is served at the hostname) once it holds the value; else it stays pending and checks says what was found. DNS changes can take minutes to appear. Requires a key.",
    input: domainArgs,
    output: domainVerifyResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async run(args, call) {
      const c = await accountCaller(call);
      const d = await verifyDomain(call.ctx, c.account, args.hostname);
      const found = d.checks.map((k) =>
        k.error
          ? `look-up failed (${k.error})`
          : k.found.length
            ? `found ${k.found.map((v) => `"${v}"`).join(", ")}`
            : "no TXT record found",
      );
      return {
        structured: d,
        text:
          d.status === "active"
            ? `${d.hostname} is active: it serves drop ${d.slug}.${d.vercel?.misconfigured ? ` Vercel reports its DNS records are not pointed at it yet: publish the CNAME ${d.hostname} → ${d.target.value}.` : ""}`
            : `${d.hostname} is still pending: at ${d.verification.name}, ${found.join("; ")}; expected "${d.verification.value}". Try again in a few minutes.`,
      };
    },
  }),
  tool({
    name: "list_domains",
    title: "List my custom domains",
    description:
      "List the account's custom domains: hostname, drop slug, status (pending or active) and the DNS records each needs. Requires a key.",
    input: listDomainsArgs,
    output: domainsListSchema,
    annotations: READS,
    async run(_args, call) {
      const c = await accountCaller(call);
      const r = await listDomains(call.ctx, c.account);
      const lines = r.domains.map((d) => `- ${d.hostname} → ${d.slug}: ${d.status}`);
      return {
        structured: r,
        text: [`${r.domains.length} custom domain${r.domains.length === 1 ? "" : "s"}.`, ...lines].join("\n"),
      };
    },
  }),
  tool({
    name: "remove_domain",
    title: "Remove a custom domain",
    description:
      "Remove one of the account's custom domains: the drop is no longer served at that hostname (the drop itself stays). Requires a key.",
    input: domainArgs,
    output: domainDeleteResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await deleteDomain(call.ctx, c.account, args.hostname);
      return { structured: r, text: `Removed the custom domain ${r.deleted}.` };
    },
  }),
  tool({
    name: "get_limits",
    title: "Show my plan's limits",
    description:
      "Show the limits that apply to the caller: plan (anonymous without a key), files per call, sizes, lifetime (ttl) bounds, whether named drops and appends are available, deploys per minute. Call it before a large deploy.",
    input: getLimitsArgs,
    output: limitsResponseSchema,
    annotations: READS,
    async run(_args, call) {
      const c = await caller(call);
      const l = describeLimits(call.ctx, c.account);
      const ttlMax = l.limits.ttl_max_seconds === null ? "no maximum" : `max ${l.limits.ttl_max_seconds} s`;
      return {
        structured: l,
        text: `Plan: ${l.plan}. Up to ${l.limits.files_per_request} files per deploy, ${l.limits.body_bytes} bytes per call, ${l.limits.file_bytes} bytes per file, ${l.limits.drop_bytes} bytes per drop in total; ${l.limits.redirect_rules} redirect rules and ${l.limits.header_rules} header rules per drop; ttl min ${l.limits.ttl_min_seconds} s, ${ttlMax}; named drops and append_files: ${l.limits.named_drops ? "yes" : "no"}; ${l.limits.versions_kept} versions kept per drop; ${l.limits.deploys_per_minute} deploys per minute.`,
      };
    },
  }),
  tool({
    name: "device_authorize",
    title: "Ask the user for an API key",
    description:
      "For an agent without a key: starts a device authorisation (RFC 8628). Give the user verification_uri_complete (and user_code) to open, log in and approve; " +
      "then call device_token with device_code every interval seconds until it returns the key. Expires after expires_in seconds. " +
      "Pass claims (slug and claim_token of drops you deployed anonymously) and the approval also moves them into the user's account; device_token reports each one.",
    input: deviceAuthorizeArgs,
    output: deviceAuthorizationSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(_args, call) {
      const d = await authorizeDevice(call.ctx, call.req, call.raw);
      return {
        structured: d,
        text: `Ask the user to open ${d.verification_uri_complete}, log in and approve code ${d.user_code} (expires in ${Math.round(d.expires_in / 60)} minutes). Then call device_token with device_code every ${d.interval} seconds until it returns the key.`,
      };
    },
  }),
  tool({
    name: "device_token",
    title: "Collect the approved API key",
    description:
      "Poll for the key of a device authorisation: isError with code authorization_pending until the user approves (wait interval seconds), slow_down when polled too fast, " +
      "expired_token or access_denied at the end. On approval it returns a new sp_ key for the user's account, once: use it as Authorization: Bearer from then on.",
    input: deviceTokenArgs,
    output: deviceTokenSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, call) {
      const k = await pollDevice(call.ctx, args.device_code);
      const claims = k.claims.map((c) =>
        c.claimed ? `- ${c.slug}: moved into the account (${c.url})` : `- ${c.slug}: not moved (${c.code}: ${c.error})`,
      );
      return {
        structured: k,
        text: [
          `Approved. API key for account ${k.account_id} (plan ${k.plan}): ${k.api_key}\nIt is shown once. Configure it as Authorization: Bearer ${k.api_key} for this MCP server (and the dropsite CLI: npx dropsite login --key …).`,
          ...(claims.length ? ["Anonymous drops asked for:", ...claims] : []),
        ].join("\n"),
      };
    },
  }),
] as const;

/**
 * zod writes a nullable field as `type: ["string", "null"]`; clients that map tool schemas onto a
 * single-type dialect (the Inspector warns about it) read `anyOf` of single types more reliably.
 */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = singleTypes(v);
  if (Array.isArray(out.type) && out.anyOf === undefined) {
    const { type, ...rest } = out as { type: unknown[] };
    return { ...rest, anyOf: type.map((t) => ({ type: t })) };
  }
  return out;
}

/**
 * Compact schemas: zod bounds every z.int() by ±2^53 and spells a date-time as a long pattern
 * next to its format; neither tells an agent anything, so both go.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === "minimum" && v === Number.MIN_SAFE_INTEGER) || (k === "maximum" && v === Number.MAX_SAFE_INTEGER))
      continue;
    out[k] = compact(v);
  }
  if (out.format === "date-time") delete out.pattern;
  return out;
}

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  compact(singleTypes(z.toJSONSchema(schema, { target: "draft-2020-12", io }))) as Record<string, unknown>;

let descriptors: Tool[] | undefined;

/** The tool descriptors of tools/list (the same in both eras), generated once. */
export function toolDescriptors(): Tool[] {
  descriptors ??= tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input, "input") as Tool["inputSchema"],
    outputSchema: jsonSchema(t.output, "output"),
    annotations: { title: t.title, ...t.annotations },
    ...("preview" in t && t.preview ? { _meta: previewToolMeta() } : {}),
  }));
  return descriptors;
}

export function findTool(name: string) {
  return tools.find((t) => t.name === name);
}

/** Maps a zod issue on an argument to the REST error code for the same mistake. */
function argumentError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue?.path[0];
  if (field === "ttl") return ApiError.fromZod(error, "The arguments", { code: "invalid_ttl", docs: "limits" });
  if (field === "password" || field === "mode") return ApiError.fromZod(error, "The arguments", { docs: "access" });
  if (field === "name")
    return ApiError.fromZod(error, "The arguments", {
      code: "invalid_name",
      hint: "name: lowercase letters, digits and hyphens, starting with a letter or digit, up to 41 characters.",
      docs: "named-drops",
    });
  if (issue?.code === "unrecognized_keys" && issue.keys.includes("name")) {
    return ApiError.fromZod(error, "The arguments", {
      hint: "To publish under a stable name, call deploy_named {name, files} (paid plans).",
      docs: "mcp",
    });
  }
  return ApiError.fromZod(error, "The arguments", {
    hint: "Check the arguments against the tool's inputSchema (tools/list).",
    docs: "mcp",
  });
}

export interface ToolResult {
  [key: string]: unknown;
  // An image block has no text: readers of content[i].text see undefined there.
  content: ({ type: "text"; text: string } | (ImageBlock & { text?: undefined }))[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  _meta?: Record<string, unknown>;
}

/** Where a failed result carries the error envelope for programs (clients do not validate _meta). */
const ERROR_META_KEY = "dev.dropsite/error";

/**
 * Renders a failed tool run: text an agent can relay (code, error, hint, URLs) and the envelope
 * under _meta. No structuredContent: SDK 1.x clients validate it against the tool's
 * outputSchema even on isError results, and throw when it does not match.
 */
export function toolError(err: unknown, tier: Tier = "anonymous"): ToolResult {
  const e = forMcp(toApiError(err), tier);
  const env = e.envelope();
  const lines = [`Error (${env.code}): ${env.error}`];
  if (env.hint) lines.push(`Hint: ${env.hint}`);
  const retry = e.headers["Retry-After"];
  if (retry) lines.push(`Retry after ${retry} seconds.`);
  if (env.upgrade_url) lines.push(`Upgrade: ${env.upgrade_url}`);
  if (env.docs_url) lines.push(`Docs: ${env.docs_url}`);
  if (env.limit !== undefined && env.allowed !== undefined)
    lines.push(`Limit: ${env.limit} = ${env.allowed}${env.plan ? ` (plan ${env.plan})` : ""}`);
  if (env.unusable)
    lines.push(
      `Unusable hashes: ${env.unusable.slice(0, 50).join(", ")}${env.unusable.length > 50 ? ` and ${env.unusable.length - 50} more` : ""}`,
    );
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    isError: true,
    _meta: { [ERROR_META_KEY]: { ...env } },
  };
}

type RunOutput = { structured: Record<string, unknown>; text: string; image?: ImageBlock };

/** Where a sealed secret stood in the stored text. */
const SEALED_MARK = "\u0000sealed\u0000";

/** The answer as stored for replay: a one-time secret sealed under its record's id, and out of the text. */
function sealAnswer(out: RunOutput, field: string | undefined, e: AppContext["env"]): RunOutput {
  const secret = field ? out.structured[field] : undefined;
  const id = out.structured.id;
  if (typeof secret !== "string" || typeof id !== "string") return out;
  return {
    structured: { ...out.structured, [field!]: sealSecret(secret, id, e) },
    text: out.text.replaceAll(secret, SEALED_MARK),
  };
}

function openAnswer(out: RunOutput, field: string | undefined, e: AppContext["env"]): RunOutput {
  const sealed = field ? out.structured[field] : undefined;
  const id = out.structured.id;
  if (typeof sealed !== "string" || typeof id !== "string") return out;
  const secret = openSecret(sealed, id, e);
  return { structured: { ...out.structured, [field!]: secret }, text: out.text.replaceAll(SEALED_MARK, secret) };
}

/**
 * A write tool called with idempotency_key: runs once per caller and key (lib/idempotency.ts);
 * the same tool with the same arguments replays the first result, other arguments are a conflict.
 * A failed run stores nothing, so a retry runs again.
 */
async function runOnce(
  name: string,
  key: string,
  call: ToolCall,
  sealed: string | undefined,
  run: () => Promise<RunOutput>,
): Promise<RunOutput> {
  const fingerprint = toolCallFingerprint(call.ctx.env, name, call.raw);
  const answer = await runIdempotent(
    call.ctx,
    { caller: await idempotencyCaller(call.ctx, call.req), key, fingerprint },
    async () => ({
      status: 200,
      body: JSON.stringify(sealAnswer(await run(), sealed, call.ctx.env)),
    }),
  );
  return openAnswer(JSON.parse(answer.body) as RunOutput, sealed, call.ctx.env);
}

/** Runs a known tool; every failure becomes an isError result. */
export async function callTool(def: (typeof tools)[number], call: ToolCall): Promise<ToolResult> {
  try {
    const parsed = def.input.safeParse(call.raw);
    if (!parsed.success) throw argumentError(parsed.error);
    // Each entry of `tools` is typed by its own schemas; the union call is safe because args came from that tool's own input schema.
    const run = () => (def.run as (a: unknown, c: ToolCall) => Promise<RunOutput>)(parsed.data, call);
    const key = (parsed.data as { idempotency_key?: unknown }).idempotency_key;
    const out =
      key === undefined
        ? await run()
        : await runOnce(def.name, parseIdempotencyKey(key), call, "sealed" in def ? def.sealed : undefined, run);
    const result: ToolResult = {
      content: [{ type: "text", text: out.text }, ...(out.image ? [out.image] : [])],
      structuredContent: out.structured,
      isError: false,
    };
    // The preview's QR code travels with the result, for the view only (text and structuredContent stay as they were).
    if ("preview" in def && def.preview && typeof out.structured.url === "string")
      result._meta = { [QR_META_KEY]: qrModules(out.structured.url) };
    return result;
  } catch (err) {
    // The caller's plan decides which advice is true; an unusable credential is advised as anonymous.
    const tier = await caller(call).then(tierOf, () => "anonymous" as const);
    return toolError(err, tier);
  }
}
