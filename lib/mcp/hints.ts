import { ApiError } from "../errors";
import {
  ACCESS_PASSWORD_MAX_CHARS,
  ACCESS_PASSWORD_MIN_CHARS,
  IDEMPOTENCY_KEY_MAX_CHARS,
  limits,
  TTL_CEILING_SECONDS,
  type Tier,
  type TierLimits,
} from "../plans";
import { BODY_BYTES } from "./schemas";

// Hints for agents on MCP. The REST services word their hints for HTTP callers (query strings,
// POST /deploy/{slug}); on MCP the same failure is explained in tool names, and upgrade advice
// is given only when the plan table shows a plan that lifts the limit.

const MB = 1024 * 1024;
const tiers = Object.keys(limits) as Tier[];

/** The plans (never "anonymous") on which `better` holds, cheapest first. */
function plansWhere(better: (l: TierLimits) => boolean): string[] {
  return tiers.filter((t) => t !== "anonymous" && better(limits[t]));
}

const or = (names: string[]) =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;

interface Advice {
  hint?: string;
  upgrade?: boolean;
  /** The message in MCP's words, when the service's names an HTTP header. */
  message?: string;
}

/** What an agent on the `tier` plan can do about an error with this code; undefined: keep the service's hint. */
function advice(e: ApiError, tier: Tier): Advice | undefined {
  const mine = limits[tier];
  if (e.docs === "uploads") return uploadAdvice(e);
  if (e.docs === "idempotency") return idempotencyAdvice(e);
  if (e.docs === "webhooks" && e.details.limit === "max_webhooks") {
    return {
      hint: `Call list_webhooks, then remove_webhook for one you no longer use${e.upgrade ? "; or see upgrade_url for a plan with more" : ""}.`,
      upgrade: e.upgrade,
    };
  }
  if (e.docs === "access" && e.code === "invalid_request") {
    return {
      hint: `Call set_access with {slug, mode: "password", password} (a password of ${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters), {slug, mode: "members"} (a team's drop only) or {slug, mode: "public"}.`,
    };
  }
  switch (e.code) {
    case "auth_required":
      return {
        hint:
          "This tool needs an API key: configure your MCP client to send Authorization: Bearer sp_… on this server. " +
          "No key yet? Call device_authorize, show the user the verification URL, then call device_token until it returns the key. " +
          "Clients with MCP OAuth support (agent platforms' connectors) sign the user in instead: the server's OAuth resource metadata is at /.well-known/oauth-protected-resource/mcp.",
      };
    case "subscription_required": {
      const on = plansWhere((l) => l.namedDrops && l.append);
      return {
        hint: `Named drops (deploy_named) and append_files need the ${or(on)} plan; see upgrade_url. deploy_html and deploy_files work on every plan.`,
        upgrade: on.length > 0,
      };
    }
    case "file_cap_exceeded": {
      const more = plansWhere((l) => l.filesPerRequest > mine.filesPerRequest);
      const split = mine.append
        ? `Send up to ${mine.filesPerRequest} files with deploy_files (or deploy_named), then add the rest with append_files, ${mine.filesPerRequest} per call.`
        : `Send at most ${mine.filesPerRequest} files per call.`;
      return more.length > 0
        ? {
            hint: `${split} The ${or(more)} plan allows ${Math.max(...more.map((p) => limits[p as Tier].filesPerRequest))} files per call; see upgrade_url.`,
            upgrade: true,
          }
        : { hint: split };
    }
    case "payload_too_large": {
      if (e.details.limit === "files_per_drop") return { hint: "This drop is full; deploy the rest as another drop." };
      const liftsBody = plansWhere((l) => l.bodyBytes > mine.bodyBytes);
      const liftsFile = plansWhere((l) => l.fileBytes > mine.fileBytes);
      const base =
        `One tool call carries at most ${Math.round(BODY_BYTES / MB)} MB, base64 included (a third larger than the bytes). ` +
        (mine.append
          ? "Split the site: deploy part of it, then add the rest with append_files."
          : "Send fewer or smaller files per call.");
      const lifts = e.details.limit === "file_bytes" ? liftsFile : liftsBody;
      return lifts.length > 0
        ? { hint: `${base} The ${or(lifts)} plan raises this limit; see upgrade_url.`, upgrade: true }
        : { hint: base };
    }
    case "invalid_ttl": {
      const longer = plansWhere(
        (l) => mine.ttlMaxSeconds !== null && (l.ttlMaxSeconds === null || l.ttlMaxSeconds > mine.ttlMaxSeconds),
      );
      const max = `at most ${mine.ttlMaxSeconds ?? TTL_CEILING_SECONDS}`;
      return {
        hint: `ttl is whole seconds, at least ${mine.ttlMinSeconds}, ${max} on this plan (get_limits shows it).${longer.length ? ` The ${or(longer)} plan allows longer; see upgrade_url.` : ""}`,
        upgrade: longer.length > 0,
      };
    }
    case "not_found":
      if (e.docs === "versions")
        return {
          hint: "Call list_versions {slug} for the retained versions of this drop; a pruned version cannot come back.",
        };
      if (e.docs === "read-back")
        return { hint: "Call list_files {slug, version?} for the paths of that version of this drop." };
      if (e.docs === "webhooks")
        return {
          hint: "Call list_webhooks for the ids of this account's webhooks; other accounts' webhooks are not visible.",
        };
      return {
        hint: "Call list_drops for the slugs of this account's drops; drops of other accounts are not visible.",
      };
    case "rate_limited":
      return { hint: `Wait for the time in "Retry after", then call again. No plan raises this abuse guard.` };
    default:
      return undefined;
  }
}

/** Idempotency failures, told in terms of the idempotency_key argument rather than the REST header. */
function idempotencyAdvice(e: ApiError): Advice {
  const message = e.message
    .replaceAll("Idempotency-Key", "idempotency_key")
    .replace("a different request", "a different call (another tool or other arguments)");
  if (e.code === "invalid_request")
    return {
      message,
      hint: `Pass idempotency_key as 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters (a fresh UUID per write), or leave it out.`,
    };
  if (e.headers["Retry-After"])
    return {
      message,
      hint: "The first call with this idempotency_key is still running: wait, then call again with the same arguments and key to get its result.",
    };
  return {
    message,
    hint: "Use a new idempotency_key for a new write; reuse a key only to retry the identical call (same tool, same arguments).",
  };
}

/** Upload failures, told in the tools of the preflight flow. */
function uploadAdvice(e: ApiError): Advice | undefined {
  if (e.code === "not_found")
    return {
      hint: "The upload_token has expired or was never issued: call preflight_files again, then upload_content for each missing hash.",
    };
  if (e.details.unusable !== undefined) {
    return {
      hint: "Call preflight_files with these files, send each missing hash with upload_content, then deploy again; without an API key pass the preflight's upload_token to upload_content and deploy_files.",
    };
  }
  return undefined;
}

/** The error as an agent on MCP should read it: hints in tool names, upgrade advice only when true. */
export function forMcp(e: ApiError, tier: Tier): ApiError {
  const a = advice(e, tier);
  if (!a) return e;
  return new ApiError(e.code, a.message ?? e.message, {
    hint: a.hint ?? e.hint,
    upgrade: a.upgrade ?? false,
    docs: e.docs,
    headers: e.headers,
    details: e.details,
  });
}
