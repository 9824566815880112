// The database schema: one module per domain, everything imported from here (lib/db/schema), as
// drizzle.config.ts reads it. Bytes live in Storage; these tables hold the metadata.

export * from "./drops";
export * from "./credentials";
export * from "./webhooks";
export * from "./domains";
export * from "./safety";
export * from "./stats";
export * from "./render";
export * from "./feed";
export * from "./teams";
export * from "./access";
export * from "./review";
