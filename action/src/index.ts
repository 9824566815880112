// The dropsite GitHub Action (action/action.yml): bundled into action/dist/index.mjs by
// scripts/build-action.mjs. A pull request opened, updated or reopened → a staged deploy of the
// named drop aliased pr-<number> and ONE comment kept current; closed → the alias deleted and the
// comment says so; a push to the default branch → a live deploy. docs/ci.md shows it in use.
import path from "node:path";
import { readFileSync } from "node:fs";
import * as core from "@actions/core";
import { ApiFailure, Dropsite, type Deployed } from "./api";
import { closedComment, previewComment, type RenderSummary } from "./comment";
import { planFor, type EventPayload, type Plan } from "./event";
import { PullRequestComment } from "./github";

/** An input as a boolean: true/false (any case), empty for the default. */
function flag(name: string, fallback: boolean): boolean {
  const v = core.getInput(name).trim().toLowerCase();
  if (v === "") return fallback;
  if (v === "true") return true;
  if (v === "false") return false;
  throw new Error(`The input ${name} must be true or false, got ${JSON.stringify(v)}.`);
}

function readEvent(): EventPayload {
  const file = process.env.GITHUB_EVENT_PATH;
  if (!file) return {};
  return JSON.parse(readFileSync(file, "utf8")) as EventPayload;
}

interface Settings {
  api: Dropsite;
  name: string;
  dir: string;
  comment: boolean;
  render: boolean;
  token: string;
  owner: string;
  repo: string;
}

function settings(): Settings {
  // Masked first, before anything could print it: the runner hides it in every later line.
  const key = core.getInput("api-key", { required: true });
  core.setSecret(key);
  const token = core.getInput("github-token");
  if (token) core.setSecret(token);
  const baseUrl = core.getInput("base-url", { required: true });
  if (!/^https?:\/\//.test(baseUrl)) throw new Error("The input base-url must be the service's http(s) URL.");
  const [owner = "", repo = ""] = (process.env.GITHUB_REPOSITORY ?? "").split("/");
  return {
    api: new Dropsite(baseUrl, key),
    name: core.getInput("name").trim(),
    dir: path.resolve(process.env.GITHUB_WORKSPACE ?? process.cwd(), core.getInput("path") || "."),
    comment: flag("comment", true),
    render: flag("render-check", true),
    token,
    owner,
    repo,
  };
}

/**
 * Without a name there is no drop to preview: the step fails, and on a plan without named drops
 * it carries the API's own refusal (its message and upgrade_url).
 */
async function needName(s: Settings): Promise<never> {
  const refusal = (await s.api.namedDrops()) ? null : await s.api.namedDropsRefusal();
  throw new Error(
    `Set the input name: the Action deploys one named drop, and a pull request's preview is an alias of it.${refusal ? ` dropsite says: ${refusal.message}` : ""}`,
  );
}

function commentFor(s: Settings, number: number): PullRequestComment | null {
  if (!s.comment) return null;
  if (!s.token) {
    core.warning("No github-token: the pull request gets no comment.");
    return null;
  }
  return new PullRequestComment(s.token, s.owner, s.repo, number, s.name);
}

function outputs(o: { url: string; version: number; versionUrl: string | null; aliasUrl: string; render: string }) {
  core.setOutput("url", o.url);
  core.setOutput("version", String(o.version));
  core.setOutput("version-url", o.versionUrl ?? "");
  core.setOutput("alias-url", o.aliasUrl);
  core.setOutput("render-status", o.render);
}

function deployedLine(d: { answer: Deployed; sent: number; unchanged: number; total: number }): string {
  const a = d.answer;
  return `${a.name ?? a.slug} version ${a.version}${a.promoted ? " (live)" : ` (staged; live stays at ${a.live_version})`}: ${d.sent} of ${d.total} files sent, ${d.unchanged} unchanged.`;
}

async function preview(s: Settings, plan: Extract<Plan, { kind: "preview" }>): Promise<void> {
  const deployed = await s.api.deployFolder(s.dir, {
    name: s.name,
    promote: "false",
    alias: plan.alias,
    ...(s.render ? { render: "1" as const } : {}),
  });
  const a = deployed.answer;
  core.info(deployedLine(deployed));
  const aliasUrl = await s.api.aliasUrl(a.slug, plan.alias);
  core.info(`Preview: ${aliasUrl ?? "(no preview URL: the host name would be over 63 characters)"}`);
  const render = (a.render as RenderSummary | undefined) ?? null;
  outputs({
    url: aliasUrl ?? a.version_url ?? a.url,
    version: a.version,
    versionUrl: a.version_url,
    aliasUrl: aliasUrl ?? "",
    render: render?.status ?? "",
  });
  const pr = commentFor(s, plan.number);
  if (!pr) return;
  const body = previewComment({
    name: s.name,
    number: plan.number,
    branch: plan.branch,
    headSha: plan.headSha,
    aliasUrl,
    version: a.version,
    versionUrl: a.version_url,
    liveUrl: a.url,
    render,
    openComments: typeof a.open_comments === "number" ? a.open_comments : 0,
  });
  core.info(`Pull request comment ${await pr.write(body)}.`);
}

async function close(s: Settings, plan: Extract<Plan, { kind: "close" }>): Promise<void> {
  const slug = await s.api.slugOf(s.name);
  const deleted = slug !== null && (await s.api.deleteAlias(slug, plan.alias));
  core.info(deleted ? `Deleted the preview ${plan.alias} of ${s.name}.` : `${s.name} had no preview ${plan.alias}.`);
  const pr = commentFor(s, plan.number);
  if (pr) core.info(`Pull request comment ${await pr.write(closedComment(s.name, plan.number, plan.alias), false)}.`);
}

async function live(s: Settings): Promise<void> {
  const deployed = await s.api.deployFolder(s.dir, { name: s.name, ...(s.render ? { render: "1" as const } : {}) });
  const a = deployed.answer;
  core.info(deployedLine(deployed));
  core.info(`Live: ${a.url}`);
  const render = (a.render as RenderSummary | undefined)?.status ?? "";
  if (render) core.info(`Render check: ${render}`);
  outputs({ url: a.url, version: a.version, versionUrl: a.version_url, aliasUrl: "", render });
}

async function run(): Promise<void> {
  const plan = planFor(process.env.GITHUB_EVENT_NAME ?? "", readEvent(), process.env.GITHUB_REPOSITORY ?? "");
  // Before any input is read: a fork's run has no key, and must not need one.
  if (plan.kind === "skip") return core.notice(`dropsite: ${plan.reason}`);
  const s = settings();
  if (!s.name) return needName(s);
  if (plan.kind === "preview") return preview(s, plan);
  if (plan.kind === "close") return close(s, plan);
  return live(s);
}

run().catch((err: unknown) => {
  const message =
    err instanceof ApiFailure ? `dropsite refused: ${err.message}` : err instanceof Error ? err.message : String(err);
  core.setFailed(message);
});
