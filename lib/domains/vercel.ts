import { VercelCore } from "@vercel/sdk/core.js";
import { domainsGetDomainConfig } from "@vercel/sdk/funcs/domainsGetDomainConfig.js";
import { projectsAddProjectDomain } from "@vercel/sdk/funcs/projectsAddProjectDomain.js";
import { projectsGetProjectDomain } from "@vercel/sdk/funcs/projectsGetProjectDomain.js";
import { projectsRemoveProjectDomain } from "@vercel/sdk/funcs/projectsRemoveProjectDomain.js";
import { VercelError } from "@vercel/sdk/models/vercelerror.js";
import type { Result } from "@vercel/sdk/types/fp.js";
import type { Env } from "../env";
import { upstreamUnavailable } from "../errors";
import type { DomainVercel } from "../schemas";

// TLS on Vercel: a verified custom domain is added to the Vercel project that serves the app
// (Vercel then issues its certificate and routes it here), and removed when the domain is
// deleted. Through the official SDK, pointed at VERCEL_API_URL when set (tests: a stand-in).
// The token goes only into the SDK's Authorization header, never into an answer or a log line.
// The SDK's standalone functions on its minimal client, not its `Vercel` class: that class loads
// the schemas of Vercel's whole API, about 410 MB of heap in every process that imports this
// module (docs/benchmarks.md); these four calls load about 2 MB.

interface VercelProject {
  client: VercelCore;
  projectId: string;
  teamId?: string;
}

/** The project to attach domains to, when VERCEL_TOKEN and VERCEL_PROJECT_ID are set. */
function project(env: Env): VercelProject | undefined {
  if (!env.VERCEL_TOKEN || !env.VERCEL_PROJECT_ID) return undefined;
  const client = new VercelCore({
    bearerToken: env.VERCEL_TOKEN,
    ...(env.VERCEL_API_URL ? { serverURL: env.VERCEL_API_URL.replace(/\/+$/, "") } : {}),
    retryConfig: { strategy: "none" },
    timeoutMs: 10_000,
  });
  return { client, projectId: env.VERCEL_PROJECT_ID, ...(env.VERCEL_TEAM_ID ? { teamId: env.VERCEL_TEAM_ID } : {}) };
}

function status(err: unknown): number | undefined {
  return err instanceof VercelError ? err.statusCode : undefined;
}

/** A standalone function's result as its value, or its error thrown (as the `Vercel` class does). */
async function value<T>(call: Promise<Result<T, unknown>>): Promise<T> {
  const r = await call;
  if (!r.ok) throw r.error;
  return r.value;
}

/** A failed call, as the 503 the caller answers (the SDK's message names no credential). */
function unavailable(err: unknown) {
  return upstreamUnavailable(
    "Vercel API",
    err instanceof Error ? new Error(`Vercel API: ${err.message.slice(0, 300)}`) : err,
  );
}

/**
 * Adds the domain to the project (POST /v10/projects/{id}/domains); a domain the project has
 * already (409) is read back instead. Then asks for its DNS configuration (misconfigured).
 * Undefined when no Vercel project is configured; 503 when Vercel refuses or cannot be reached.
 */
export async function attachDomain(env: Env, hostname: string): Promise<DomainVercel | undefined> {
  const p = project(env);
  if (!p) return undefined;
  const team = p.teamId ? { teamId: p.teamId } : {};
  let added: {
    verified: boolean;
    verification?: { type: string; domain: string; value: string; reason: string }[] | undefined;
  };
  try {
    added = await value(
      projectsAddProjectDomain(p.client, { idOrName: p.projectId, ...team, requestBody: { name: hostname } }),
    );
  } catch (err) {
    if (status(err) !== 409) throw unavailable(err);
    try {
      added = await value(projectsGetProjectDomain(p.client, { idOrName: p.projectId, domain: hostname, ...team }));
    } catch (again) {
      throw unavailable(again);
    }
  }
  let misconfigured: boolean | null = null;
  try {
    misconfigured = (
      await value(domainsGetDomainConfig(p.client, { domain: hostname, projectIdOrName: p.projectId, ...team }))
    ).misconfigured;
  } catch (err) {
    // The domain is attached; only the report of its records is missing.
    console.error("[domains] Vercel domain config:", err instanceof Error ? err.message.slice(0, 300) : err);
  }
  const out: DomainVercel = { verified: added.verified, misconfigured };
  if (added.verification?.length)
    out.verification = added.verification.map(({ type, domain, value, reason }) => ({ type, domain, value, reason }));
  return out;
}

/**
 * Removes the domain from the project (DELETE /v9/projects/{id}/domains/{hostname}); one the
 * project does not have (404) counts as removed. 503 when Vercel refuses or cannot be reached.
 */
export async function detachDomain(env: Env, hostname: string): Promise<void> {
  const p = project(env);
  if (!p) return;
  try {
    await value(
      projectsRemoveProjectDomain(p.client, {
        idOrName: p.projectId,
        domain: hostname,
        ...(p.teamId ? { teamId: p.teamId } : {}),
      }),
    );
  } catch (err) {
    if (status(err) !== 404) throw unavailable(err);
  }
}
