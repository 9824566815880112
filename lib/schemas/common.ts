import { z } from "zod";

// What several resource groups of lib/schemas share: the plan names and the date-time format.

export const planSchema = z.enum(["free", "pro", "team"]);

export const isoDate = z.iso.datetime({ offset: true });
