// Request and response schemas, named per resource: they validate requests and type the code,
// and the MCP tool schemas and the OpenAPI document are generated from them. One module per
// resource group; everything is imported from here (lib/schemas).

export { NAME_PATTERN } from "../patterns";
export * from "./deploy";
export * from "./render";
export * from "./drops";
export * from "./envelope";
export * from "./stats";
export * from "./account";
export * from "./webhooks";
export * from "./domains";
export * from "./services";
export * from "./teams";
export * from "./readback";
export * from "./review";
