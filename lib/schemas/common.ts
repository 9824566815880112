import { z } from "zod";

// What several resource groups of lib/schemas share: the plan names and the date-time format.

export const planSchema = z.enum(["free", "pro", "team"]);

export const isoDate = z.iso.datetime({ offset: true });

/** The address of one version of a drop alone (a preview host). */
export const versionUrlSchema = z
  .url()
  .nullable()
  .describe(
    "The address of this version alone, https://<slug>---v<N>.<serve domain>/ (a preview host: it serves this version whatever is live, with X-Robots-Tag: noindex); null where that label would pass 63 characters.",
  );
