// npm run client:types: writes client/schema.ts, the typed client's types, from the OpenAPI
// document the code declares (lib/openapi/client-types.ts). Run it after changing a route.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { clientTypesSource } from "../lib/openapi/client-types";

const out = path.join(import.meta.dirname, "..", "client", "schema.ts");
await writeFile(out, await clientTypesSource());
console.log(`client types: ${path.relative(process.cwd(), out)}`);
