// What every MCP tool module shares: a tool's definition (schemas, annotations, run), the call it
// runs with, who the caller is, and the annotation sets most tools use.
import type { ImageBlock } from "../render";
import type { z } from "zod";
import type { AppContext } from "../../context";
import { authRequired } from "../../errors";
import type { Caller } from "../../auth/caller";
import { guardAccountRoute } from "../../auth/guard";

/** A tools/call request as the server hands it to callTool. */
export interface ToolRequest {
  ctx: AppContext;
  req: Request;
  /** Arguments exactly as parsed from the request JSON (not a zod copy). */
  raw: Record<string, unknown>;
}

/** What a tool runs with: the request and its caller, resolved once by callTool (call.ts). */
export interface ToolCall extends ToolRequest {
  caller: Caller;
}

export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Annotations;
  /** Whether a host with MCP Apps shows the deploy preview (lib/mcp/preview.ts) beside the result. */
  preview?: true;
  /**
   * A result field holding a secret shown once (add_webhook's signing secret, the URL of a review
   * or share link, which carries its token): kept for an idempotent replay only sealed, as the
   * webhooks table keeps it (lib/webhooks/secret.ts).
   */
  sealed?: "secret" | "url";
  run(
    args: z.infer<I>,
    call: ToolCall,
  ): Promise<{ structured: z.infer<O>; text: string; image?: ImageBlock; link?: ResourceLinkBlock }>;
}

/** A resource link content block: a URL the client fetches itself (read_file's signed URL). */
export interface ResourceLinkBlock {
  type: "resource_link";
  uri: string;
  name: string;
  mimeType?: string;
  size?: number;
  description?: string;
}

export function tool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

/** The call's caller, required to have an account (the account routes' guard applied). */
export async function accountCaller(call: ToolCall) {
  const c = call.caller;
  if (!c.account) throw authRequired();
  await guardAccountRoute(call.ctx, c);
  return c as Caller & { account: NonNullable<Caller["account"]> };
}

/** Report entries in a tool's text; structuredContent carries the whole report. */
export const REPORT_TEXT_ENTRIES = 10;
export const REPORT_WHERE = "structuredContent.report lists them";

/** A new drop at a new URL: nothing existing changes, so not destructive; not idempotent (each call makes a drop). */
export const CREATES: Annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};
export const READS: Annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
