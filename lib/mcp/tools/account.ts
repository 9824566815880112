// The account tools: the caller's limits, and getting a key by device authorisation (RFC 8628).
import { describeLimits } from "../../drops/manage";
import { limitsResponseSchema } from "../../schemas";
import { authorizeDevice, pollDevice } from "../../device/flow";
import {
  deviceAuthorizationSchema,
  deviceAuthorizeArgs,
  deviceTokenArgs,
  deviceTokenSchema,
  getLimitsArgs,
} from "../schemas";
import { READS, tool } from "./define";

export const accountTools = [
  tool({
    name: "get_limits",
    title: "Show my plan's limits",
    description:
      "Show the limits that apply to the caller: plan (anonymous without a key), files per call, sizes, lifetime (ttl) bounds, whether named drops and appends are available, deploys per minute. Call it before a large deploy.",
    input: getLimitsArgs,
    output: limitsResponseSchema,
    annotations: READS,
    async run(_args, call) {
      const c = call.caller;
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
