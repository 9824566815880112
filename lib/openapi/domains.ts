import { z } from "zod";
import * as S from "../schemas";
import { limits } from "../plans";
import { anyCredential, jsonRequest, jsonResponse, noCredential, type Resource } from "./operation";

// Custom domains (Team plan): POST/GET /domains, POST /domains/{hostname}/verify,
// DELETE /domains/{hostname}, and GET /domains/tls-allowed for a TLS terminator.

const hostnamePath = z.object({ hostname: z.string().describe("The domain's hostname (any case, IDN or punycode).") });

export const domains = {
  tag: "domains",
  schemas: {
    Domain: S.domainSchema,
    DomainBody: S.domainBodySchema,
    DomainList: S.domainsListSchema,
    DomainVerify: S.domainVerifyResponseSchema,
  },
  paths: () => ({
    "/domains": {
      get: {
        operationId: "listDomains",
        summary: "The account's custom domains",
        security: anyCredential,
        responses: { 200: jsonResponse(S.domainsListSchema) },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      },
      post: {
        operationId: "addDomain",
        summary: "Add a custom domain for a drop (Team plan)",
        description:
          `Pending until a TXT record at verification.name holds verification.value (then POST /domains/{hostname}/verify); point the hostname at target with a CNAME. ` +
          `At most ${limits.team.maxDomains} per account. Refused (400): the service's own hosts and names under the serve domain, IP addresses, single labels, localhost, wildcards, ports, ` +
          `names over 253 characters and labels over 63. A hostname another account holds answers 409; a slug that is not one of the account's drops 404.`,
        security: anyCredential,
        requestBody: jsonRequest(S.domainBodySchema),
        responses: { 201: jsonResponse(S.domainSchema) },
        errors: [
          "invalid_request",
          "auth_required",
          "subscription_required",
          "not_found",
          "conflict",
          "payload_too_large",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
    },
    "/domains/{hostname}/verify": {
      post: {
        operationId: "verifyDomain",
        summary: "Look up the domain's TXT record; active once it holds the value",
        description:
          "status stays pending (with checks saying what was found) until the record is seen. With a Vercel project configured, the domain is added to it first and vercel reports Vercel's view.",
        security: anyCredential,
        requestParams: { path: hostnamePath },
        responses: { 200: jsonResponse(S.domainVerifyResponseSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/domains/{hostname}": {
      delete: {
        operationId: "removeDomain",
        summary: "Remove a custom domain",
        security: anyCredential,
        requestParams: { path: hostnamePath },
        responses: { 200: jsonResponse(S.domainDeleteResponseSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/domains/tls-allowed": {
      get: {
        operationId: "tlsAllowed",
        summary: "Whether a TLS certificate may be issued for a hostname (Caddy's on-demand TLS ask)",
        description:
          "200 for an active custom domain whose drop exists, has not expired and is not disabled; 404 for anything else.",
        security: noCredential,
        requestParams: { query: z.object({ domain: z.string().describe("The hostname a TLS client asked for.") }) },
        responses: { 200: jsonResponse(z.object({ domain: z.string(), allowed: z.literal(true) })) },
        errors: ["not_found", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
