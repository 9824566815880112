import { timestamp } from "drizzle-orm/pg-core";

/** A timestamptz column read as a Date. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
