import { LRUCache } from "lru-cache";
import { dropUrl, type Env } from "../env";
import { normalizeHostname, withoutPort } from "../hostname";
import {
  isAliasName,
  NAME_PATTERN,
  PREVIEW_SEPARATOR,
  RESERVED_LABELS,
  VANITY_PATTERN,
  VERSION_SELECTOR,
} from "../patterns";

// Host → action, as a pure function: the proxy and the serve route both call it.

export type HostAction =
  | { kind: "app"; reason: string }
  | { kind: "drop"; slug: string; reason: string }
  | { kind: "vanity"; sub: string; name: string; reason: string }
  /** `<slug>---v<N>` (a retained version) or `<slug>---<alias>`: one version of a drop, not indexed. */
  | { kind: "preview"; slug: string; selector: PreviewSelector; reason: string }
  /** A host outside the service's own that could be a custom domain: served when one is active. */
  | { kind: "custom"; hostname: string; reason: string }
  | { kind: "invalid-drop-host"; reason: string };

export interface HostConfig {
  /** e.g. "drops.example.com" or "localhost:3000" */
  serveDomain: string;
  /** Host (with port) of BASE_URL, e.g. "example.com" or "localhost:3000" */
  appHost: string;
}

/** What a preview host names of its drop: a version by number, or an alias by name. */
export type PreviewSelector = { version: number } | { alias: string };

/** The largest version number a preview host can name (the column is a 32-bit integer). */
const MAX_VERSION = 2_147_483_647;

const SLUG_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function normalizeHost(host: string | null | undefined): string {
  return (host ?? "")
    .trim()
    .toLowerCase()
    .replace(/\.(?=:|$)/, "");
}

/** Strips the default port of the scheme so "x.example.com:443" matches "example.com". */
function withoutDefaultPort(host: string): string {
  return host.replace(/:(80|443)$/, "");
}

/** A request's host as the service compares it: lower case, no trailing dot, no default port. */
export function canonicalHost(host: string | null | undefined): string {
  return withoutDefaultPort(normalizeHost(host));
}

export function resolveHost(rawHost: string | null | undefined, cfg: HostConfig): HostAction {
  const host = withoutDefaultPort(normalizeHost(rawHost));
  const serve = withoutDefaultPort(normalizeHost(cfg.serveDomain));
  const app = withoutDefaultPort(normalizeHost(cfg.appHost));
  if (!host) return { kind: "app", reason: "no host header" };
  if (host === app) return { kind: "app", reason: "app host" };
  const suffix = `.${serve}`;
  if (!host.endsWith(suffix)) return outsideHost(host, app, serve);
  const label = host.slice(0, -suffix.length);
  if (label.includes(".")) return { kind: "invalid-drop-host", reason: "more than one label under the serve domain" };
  if (RESERVED_LABELS.has(label)) return { kind: "app", reason: `reserved label ${label}` };
  if (!SLUG_LABEL.test(label)) return { kind: "invalid-drop-host", reason: "not a DNS label" };
  if (label.includes(PREVIEW_SEPARATOR)) return previewHost(label);
  const dd = label.indexOf("--");
  if (dd >= 0) {
    const sub = label.slice(0, dd);
    const name = label.slice(dd + 2);
    if (VANITY_PATTERN.test(sub) && !sub.includes("--") && NAME_PATTERN.test(name) && !RESERVED_LABELS.has(sub)) {
      return { kind: "vanity", sub, name, reason: "vanity host" };
    }
    return { kind: "invalid-drop-host", reason: "malformed vanity host" };
  }
  return { kind: "drop", slug: label, reason: "drop host" };
}

/**
 * A preview host's label, split at its last `---`: the drop's slug before it (a DNS label's start,
 * no `--`, so never a vanity host's), `v<N>` after it for version N (canonical digits only: v0,
 * v01 and numbers past the column name no version), or an alias name.
 */
function previewHost(label: string): HostAction {
  const at = label.lastIndexOf(PREVIEW_SEPARATOR);
  const slug = label.slice(0, at);
  const selector = label.slice(at + PREVIEW_SEPARATOR.length);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug) || slug.includes("--") || RESERVED_LABELS.has(slug))
    return { kind: "invalid-drop-host", reason: "a preview host whose drop label is not a slug" };
  if (VERSION_SELECTOR.test(selector)) {
    const digits = selector.slice(1);
    const version = Number(digits);
    if (digits.startsWith("0") || digits.length > 10 || version > MAX_VERSION)
      return { kind: "invalid-drop-host", reason: "a preview host naming no version number" };
    return { kind: "preview", slug, selector: { version }, reason: "version preview host" };
  }
  if (!isAliasName(selector)) return { kind: "invalid-drop-host", reason: "a preview host with a malformed alias" };
  return { kind: "preview", slug, selector: { alias: selector }, reason: "alias preview host" };
}

/** The label of a preview host (`<slug>---v<N>` or `<slug>---<alias>`), or null past a DNS label's 63 characters. */
export function previewLabel(slug: string, selector: PreviewSelector): string | null {
  const label = `${slug}${PREVIEW_SEPARATOR}${"version" in selector ? `v${selector.version}` : selector.alias}`;
  return label.length <= 63 ? label : null;
}

/**
 * The address of one version (or alias) of a drop alone, with the drop URL's scheme:
 * `https://<slug>---v<N>.<serve domain>/`; null where the label would not fit 63 characters.
 */
export function previewUrl(slug: string, selector: PreviewSelector, e: Env): string | null {
  const label = previewLabel(slug, selector);
  return label ? dropUrl(label, e) : null;
}

/**
 * A host neither the app's nor under the serve domain: a custom domain when it could be one
 * (matched with or without a port), else the app's (an IP address, localhost, a single label:
 * what health checks and a TLS terminator in front of the app call it by).
 */
function outsideHost(host: string, app: string, serve: string): HostAction {
  // Remembered per host (the same answer every time: a cache of a pure function), so the
  // serve path of a custom domain does not parse its name again on every request.
  const key = `${host} ${app} ${serve}`;
  const known = outside.get(key);
  if (known) return known;
  const action = classifyOutside(host, app, serve);
  outside.set(key, action);
  return action;
}

/** Hosts remembered, the least recently seen leaving first (one cache per process). */
const outside = new LRUCache<string, HostAction>({ max: 10_000 });

function classifyOutside(host: string, app: string, serve: string): HostAction {
  const name = withoutPort(host);
  if (name === withoutPort(app) || name === withoutPort(serve))
    return { kind: "app", reason: "the app host on another port" };
  const r = normalizeHostname(name);
  if (!r.ok) return { kind: "app", reason: `not under the serve domain and not a custom domain: ${r.reason}` };
  return { kind: "custom", hostname: r.hostname, reason: "custom domain" };
}
