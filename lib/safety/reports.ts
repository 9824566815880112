import type { AppContext } from "../context";
import { findDropVersion } from "../db/serving";
import { insertReport } from "../db/safety";
import { withDb } from "../db/errors";
import { ApiError } from "../errors";
import { enforceLimit } from "../ratelimit/guard";
import { metrics } from "../metrics/registry";
import { addressHash } from "../secret";
import { resolveHost } from "../serve/host";
import { refuseBlocked } from "./blocks";
import { reportBodySchema } from "./schemas";

// Reports of abuse (POST /reports, the /report form, MCP report_abuse): no credential needed.
// The URL must be one of this service's drops; the reporter's address is kept only as a keyed
// hash (HMAC under a key derived from NEXTAUTH_SECRET), for the rate limit and for counting one
// address once.

function notOurs(): ApiError {
  return new ApiError("invalid_request", "url is not a drop of this service.", {
    hint: "Send the address of a drop as it appears in the browser (its slug or vanity host, or its custom domain).",
    details: { field: "url" },
  });
}

/** Files a report; its id. Refused before anything is written: a blocked or over-limit address, a bad body, a URL not ours. */
export async function submitReport(
  ctx: AppContext,
  input: unknown,
  address: string,
): Promise<{ id: string; status: "received" }> {
  await refuseBlocked(ctx, address);
  const hash = addressHash(address, ctx.env);
  await enforceLimit(ctx, "report", hash);
  const parsed = reportBodySchema.safeParse(input);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The report");
  const body = parsed.data;
  let url: URL;
  try {
    url = new URL(body.url);
  } catch {
    throw notOurs();
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw notOurs();
  // Userinfo names no drop and is not the reporter's to store (`http://evil@host/` is `http://host/`).
  url.username = "";
  url.password = "";
  const action = resolveHost(url.host, { serveDomain: ctx.env.SERVE_DOMAIN, appHost: new URL(ctx.env.BASE_URL).host });
  if (action.kind === "app" || action.kind === "invalid-drop-host") throw notOurs();
  // A preview host's URL reports its drop.
  const key =
    action.kind === "drop" || action.kind === "preview"
      ? { slug: action.slug }
      : action.kind === "vanity"
        ? { sub: action.sub, name: action.name }
        : { domain: action.hostname };
  const drop = await withDb(() => findDropVersion(ctx.db, key));
  // A host that is no custom domain of ours is another site's; a slug or vanity host with no drop is ours but gone.
  if (!drop) throw action.kind === "custom" ? notOurs() : new ApiError("not_found", "No drop at that URL.");
  const row = await withDb(() =>
    insertReport(
      ctx.db,
      {
        dropId: drop.id,
        slug: drop.slug,
        url: url.toString(),
        reason: body.reason,
        details: body.details ?? null,
        contact: body.contact ?? null,
        reporterHash: hash,
      },
      new Date(ctx.now()),
    ),
  );
  metrics().reports.inc({ reason: body.reason });
  return { id: row.id, status: "received" };
}
