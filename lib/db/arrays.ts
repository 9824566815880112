import { sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

/**
 * A whole column of values as one array parameter, cast to `type[]`; `unnest(...)` turns such
 * arrays back into rows. Bulk writes go this way: a multi-row VALUES list costs a parameter per
 * cell and takes drizzle and the database several times longer to build and parse (900 file
 * rows on PGlite: about 18 ms against 60–100 ms), on the main thread with PGlite. Every driver
 * here (PGlite, node-postgres, Neon) sends a JS array as a Postgres array.
 */
export function sqlArray(values: unknown[], type: string): SQL {
  return sql`${sql.param(values)}::${sql.raw(type)}[]`;
}

/** `column = any(array)`: inArray's test with one parameter for all the values, not one each. */
export function anyOf(column: PgColumn, values: unknown[]): SQL {
  return sql`${column} = any(${sqlArray(values, column.getSQLType())})`;
}
