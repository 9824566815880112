import { z } from "zod";
import { ApiError } from "@/lib/errors";

// What every server action of the dashboard does first with each argument: a server action is a
// public endpoint, so anything can arrive; a value its schema refuses is 400 invalid_request.

export function check<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The input");
  return parsed.data;
}

/** A plain string argument (a slug, an id, a name checked further by its service). */
export const text = z.string().max(1000);
