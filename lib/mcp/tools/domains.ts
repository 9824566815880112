// The custom-domain tools: add, verify, list, remove (Team plan).
import { limits } from "../../plans";
import { domainDeleteResponseSchema, domainSchema, domainsListSchema, domainVerifyResponseSchema } from "../../schemas";
import { createDomain, deleteDomain, listDomains, verifyDomain } from "../../domains/manage";
import { addDomainArgs, domainArgs, listDomainsArgs } from "../schemas";
import { accountCaller, READS, tool } from "./define";

export const domainTools = [
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
] as const;
