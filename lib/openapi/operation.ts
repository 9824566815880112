import { z } from "zod";
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiRequestBodyObject,
  ZodOpenApiResponseObject,
} from "zod-openapi";
import type { ErrorCode } from "../errors";
import type { LimitName, LimitPolicy } from "../ratelimit/policy";

// The shape every resource module (lib/openapi/<resource>.ts) declares its operations in: the
// zod schemas of lib/schemas for parameters and bodies, the success responses, and the
// error codes the operation answers. lib/openapi/index.ts renders them into the document.

/** What an operation's texts may depend on besides lib/plans.ts: the deployment's rate limits. */
export interface DocContext {
  rate: Record<LimitName, LimitPolicy>;
}

type Method = "get" | "post" | "put" | "patch" | "delete";

export interface Operation extends Omit<ZodOpenApiOperationObject, "responses" | "tags" | "security"> {
  operationId: string;
  summary: string;
  security: oas31.SecurityRequirementObject[];
  /** Success (and protocol-specific) responses by status. */
  responses: Record<number, ZodOpenApiResponseObject>;
  /** The error codes this operation answers; internal_error is added to every one. */
  errors: ErrorCode[];
}

export interface Resource {
  /** The tag every operation of the module carries. */
  tag: string;
  /** Named request and response bodies (components/schemas), by their names in the document. */
  schemas?: Record<string, z.ZodType>;
  paths: (ctx: DocContext) => Record<string, Partial<Record<Method, Operation>>>;
}

/** Either credential: an sp_ API key or an ID token. */
export const anyCredential: oas31.SecurityRequirementObject[] = [{ apiKey: [] }, { idToken: [] }];
/** An account credential, or a review link's token (rl_…) on its own drop's comment routes. */
export const reviewCredential: oas31.SecurityRequirementObject[] = [...anyCredential, { reviewLink: [] }];
/** Anonymous callers too. */
export const optionalCredential: oas31.SecurityRequirementObject[] = [{}, ...anyCredential];
export const noCredential: oas31.SecurityRequirementObject[] = [];

/** A JSON response with a body of this schema. */
export const jsonResponse = (schema: z.ZodType, description = "Success."): ZodOpenApiResponseObject => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body of this schema. */
export const jsonRequest = (schema: z.ZodType, required = true): ZodOpenApiRequestBodyObject => ({
  required,
  content: { "application/json": { schema } },
});

/** The path parameter of routes under a drop. */
export const slugPath = z.object({ slug: z.string().describe("The drop's slug.") });

export const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
