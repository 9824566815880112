import type { AppContext } from "../context";
import { ApiError } from "../errors";
import type { TierLimits } from "../plans";
import { parseHeaders, parseRedirects, refusalMessage, type Refusal } from "../rules/parse";
import { RULE_FILES, type SiteRules } from "../rules/types";
import type { InputFile } from "./paths";

// The deploy step that reads a drop's root `_redirects` and `_headers` and compiles them into
// the SiteRules stored with its file rows (lib/rules). Every way of writing files runs it: a
// file that does not parse, or is past a limit, refuses the whole write with 400
// invalid_request naming the file, the line and the rule. Rules given inline or in a zip are
// compiled before any byte is stored; rules given by reference once their bytes are stored.

function isRuleFile(f: { path: string }): boolean {
  return f.path === RULE_FILES.redirects || f.path === RULE_FILES.headers;
}

/** Whether the write holds a rules file at all (a write without one keeps the rules as they are). */
export function hasRuleFiles(files: readonly InputFile[]): boolean {
  return files.some(isRuleFile);
}

/** Whether a rules file's bytes are only in storage (a deploy by reference). */
export function rulesNeedStorage(files: readonly InputFile[]): boolean {
  return files.some((f) => isRuleFile(f) && f.ref !== undefined);
}

type Read = (f: InputFile) => Promise<Uint8Array>;

/** The bytes a request holds: inline, or a zip entry read again. */
export const requestBytes: Read = (f) => (f.source ? f.source.read() : Promise.resolve(f.bytes));

/** Reads a file by reference from the storage its row names; others from the request. */
export function storedBytes(ctx: AppContext, rows: readonly { path: string; storageRef: string }[]): Read {
  return async (f) => {
    if (!f.ref) return requestBytes(f);
    const row = rows.find((r) => r.path === f.path);
    const stream = row ? await ctx.storage.get(row.storageRef) : null;
    if (!stream) throw new Error(`stored bytes of ${f.path} are missing`);
    return new Uint8Array(await new Response(stream).arrayBuffer());
  };
}

/**
 * The rules of the rules files among `files` (only the files present: an append merges them
 * into the drop's), or null when there are none. Throws invalid_request on the first refusal.
 */
export async function compileSiteRules(
  files: readonly InputFile[],
  limits: TierLimits,
  read: Read,
): Promise<SiteRules | null> {
  const out: SiteRules = {};
  let any = false;
  for (const f of files) {
    if (!isRuleFile(f)) continue;
    const bytes = await read(f);
    if (f.path === RULE_FILES.redirects) {
      const parsed = parseRedirects(bytes, limits);
      if (!parsed.ok) throw rulesError(parsed.refusals);
      out.redirects = parsed.rules;
    } else {
      const parsed = parseHeaders(bytes, limits);
      if (!parsed.ok) throw rulesError(parsed.refusals);
      out.headers = parsed.rules;
    }
    any = true;
  }
  return any ? out : null;
}

/** 400 invalid_request: the message names the first bad line, `errors` lists every one. */
function rulesError(refusals: readonly Refusal[]): ApiError {
  const [first] = refusals as [Refusal, ...Refusal[]];
  const which = refusals.length > 1 ? `the ${refusals.length} lines listed in errors` : "that line";
  return new ApiError("invalid_request", refusalMessage(first), {
    hint: `Fix ${which} of ${first.file} (the syntax and the limits are in the docs) and deploy again; nothing was changed.`,
    docs: "site-rules",
    details: { errors: refusals.map(({ file, line, reason }) => ({ file, line, reason })) },
  });
}
