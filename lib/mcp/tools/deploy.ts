// The deploy tools: a page, a files map, a named drop, an append, deploying by reference
// (preflight_files, upload_content) and a one-time deploy URL for a local folder.
import { withToolRender } from "../render";
import type { AppContext } from "../../context";
import { decodeFilesMap, tooLargeError } from "../../deploy/body";
import { normalizeFiles, type InputFile } from "../../deploy/paths";
import { checkDeployOptions, deployFiles, guardedDeploy, subscriptionRequired } from "../../deploy/request";
import { reportLines } from "../../deploy/report-text";
import { appendToDrop } from "../../deploy/store";
import { tierOf } from "../../deploy/quota";
import { preflightFiles, uploadContent } from "../../deploy/uploads";
import { issueDeployGrant, type DeployGrant } from "../../deploy/grants";
import { aliasDeployed, aliasForDeploy } from "../../deploy/alias";
import { isPaid, limits, type Tier } from "../../plans";
import {
  appendResponseSchema,
  deployResponseSchema,
  preflightResponseSchema,
  uploadResponseSchema,
  type DeployResponse,
} from "../../schemas";
import { clientAddress } from "../../ratelimit/address";
import {
  appendFilesArgs,
  deployFilesArgs,
  deployDirectoryArgs,
  deployGrantSchema,
  deployHtmlArgs,
  deployNamedArgs,
  GRANT_RULE,
  preflightFilesArgs,
  uploadContentArgs,
  TTL_RULE,
} from "../schemas";
import { accountCaller, CREATES, REPORT_TEXT_ENTRIES, REPORT_WHERE, tool, type ToolCall } from "./define";

const CLAIM_TEXT = (base: string, d: DeployResponse) =>
  `This drop is anonymous: it is online for 30 days, then claimable for 30 more. To keep it, your human logs in at ${base} and claims it with slug ${d.slug} and claim_token ${d.claim_token} ` +
  `(or sends POST ${base}/claim with their credential and {"slug": "${d.slug}", "claim_token": "${d.claim_token}"}). The token works once; keep it private.`;

function deployText(ctx: AppContext, d: DeployResponse): string {
  const lines = [
    d.unchanged
      ? `Unchanged: the files equal the live version ${d.version} of ${d.url}; nothing was written.`
      : `Deployed ${d.files.length} file${d.files.length === 1 ? "" : "s"}: ${d.url} (version ${d.version})`,
  ];
  if (!d.promoted)
    lines.push(
      `Staged: version ${d.version} is not live (${d.url} still serves version ${d.live_version}). It is at ${d.version_url ?? "its preview host"}; rollback_drop {version: ${d.version}} makes it live.`,
    );
  lines.push(...aliasLines(d));
  if (d.name)
    lines.push(
      `Named drop "${d.name}"${d.replaced ? " (content replaced, same URL; the previous version is kept for rollback_drop)" : ""}.`,
    );
  lines.push(d.expires_at ? `Expires at ${d.expires_at}.` : "Never expires.");
  if (d.claim_token) lines.push(CLAIM_TEXT(ctx.env.BASE_URL, d));
  lines.push(...reportLines(d.report, REPORT_TEXT_ENTRIES, REPORT_WHERE));
  return lines.join("\n");
}

/** The line of a deploy that pointed an alias (`alias` on the tool), none otherwise. */
function aliasLines(d: { version: number; alias?: { name: string; url: string | null } }): string[] {
  return d.alias
    ? [`Alias ${d.alias.name} now serves version ${d.version}: ${d.alias.url ?? `<slug>---${d.alias.name}`}`]
    : [];
}

/**
 * Every deploy tool, under the deploy guard shared with REST: only a deploy that reaches storage
 * spends the per-address deploy budget; a call refused for its input counts against the higher
 * deployInvalid budget.
 */
async function runDeploy(
  args: {
    name?: string;
    ttl?: number;
    upload_token?: string;
    render_check?: boolean;
    promote?: boolean;
    alias?: string;
  },
  call: ToolCall,
  filesFor: (tier: Tier) => InputFile[],
) {
  return guardedDeploy(call.ctx, call.req, "mcp", async (quota) => {
    const c = call.caller;
    const opts = {
      ttl: args.ttl === undefined ? null : String(args.ttl),
      name: args.name ?? null,
      uploadToken: args.upload_token ?? null,
      promote: args.promote ?? null,
    };
    checkDeployOptions(c, opts);
    const alias = await aliasForDeploy(call.ctx, args.alias, c.account, args.name ? { name: args.name } : null);
    const deployed = await deployFiles(call.ctx, c, opts, normalizeFiles(filesFor(tierOf(c))), quota);
    const d = alias && c.account ? await aliasDeployed(call.ctx, c.account, deployed, alias) : deployed;
    return withToolRender(call, args.render_check, { structured: d, text: deployText(call.ctx, d) });
  });
}

/** The raw files map (not zod's copy: a "__proto__" path must be refused, not dropped). */
const rawFiles = (call: ToolCall) => (tier: Tier) => decodeFilesMap(call.raw.files, limits[tier], isPaid(tier));

const REPORT_NOTE =
  "The result's report lists referenced files the drop lacks and warnings (likely secrets, no index.html, large files): fix them and deploy again.";

function grantText(g: DeployGrant, opts: { promote: boolean; alias: string | null }): string {
  return [
    `One-time deploy URL (expires ${g.expires_at}): ${g.url}`,
    "With a shell, run either:",
    `  ${g.commands.npx}`,
    "or zip the folder and send it:",
    `  ${g.commands.zip}`,
    `  ${g.commands.curl}`,
    `The answer is the deploy's JSON (url, and a claim_token when anonymous). ${GRANT_RULE}`,
    ...(opts.promote ? [] : ["The deploy made through it is staged: the named drop's live version does not change."]),
    ...(opts.alias ? [`It points the alias ${opts.alias} at the new version; the answer's alias gives its URL.`] : []),
  ].join("\n");
}

const ANON =
  "Without an API key the drop is anonymous: it lives 30 days and the result carries a claim_token the user needs to keep it; with a key (Authorization: Bearer sp_…) it belongs to that account.";

export const deployTools = [
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
      "promote: false stages the new version (its version_url shows it, rollback_drop makes it live); alias points an alias at it in the same call. " +
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
      const alias = await aliasForDeploy(call.ctx, args.alias, c.account, { slug: args.slug });
      const appended = await appendToDrop(call.ctx, c, args.slug, files, null, args.promote !== false);
      const r = alias ? await aliasDeployed(call.ctx, c.account, appended, alias) : appended;
      return withToolRender(call, args.render_check, {
        structured: r,
        text: [
          `Added ${r.files.length} file${r.files.length === 1 ? "" : "s"} to ${r.url} (now ${r.total_files}; version ${r.version}).`,
          ...(r.promoted
            ? []
            : [
                `Staged: ${r.url} still serves version ${r.live_version}; version ${r.version} is at ${r.version_url ?? "its preview host"}.`,
              ]),
          ...aliasLines(r),
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
      const c = call.caller;
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
      const c = call.caller;
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
      "With a name (paid plans) the deploy replaces that named drop's files; promote: false stages the new version instead of making it live, and alias points that alias at it (as deploy_named's). With render_check, the deploy made through the URL is checked in a browser and its answer (the command's output) carries `render`.",
    input: deployDirectoryArgs,
    output: deployGrantSchema,
    // Issuing the URL changes nothing; the command it returns creates a drop (or, with a name, replaces one).
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(args, call) {
      const c = call.caller;
      const { promote } = checkDeployOptions(c, {
        ttl: args.ttl === undefined ? null : String(args.ttl),
        name: args.name ?? null,
        promote: args.promote ?? null,
      });
      const alias = await aliasForDeploy(call.ctx, args.alias, c.account, args.name ? { name: args.name } : null);
      const g = await issueDeployGrant(call.ctx, call.req, c, {
        dir: args.dir,
        ttl: args.ttl,
        name: args.name,
        render: args.render_check,
        promote,
        alias,
      });
      return { structured: g, text: grantText(g, { promote, alias }) };
    },
  }),
] as const;
