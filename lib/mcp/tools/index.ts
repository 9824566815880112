// The MCP tools: thin adapters over the same lib/ services as the REST routes, one module per
// concern (deploy, drops, files, webhooks, domains, account, stats, reports), listed here in tools/list's order. A tool
// that runs and fails (limits, plan gates, bad arguments, auth) answers a result with
// isError: true whose text an agent can relay (code, error, hint, upgrade and docs URLs): call.ts.
import type { Tool } from "@modelcontextprotocol/server";
import { accountTools } from "./account";
import { aliasTools } from "./aliases";
import { commentTools } from "./comments";
import { deployTools } from "./deploy";
import { describeTools } from "./describe";
import { domainTools } from "./domains";
import { dropTools } from "./drops";
import { fileTools } from "./files";
import { reportTools } from "./report";
import { sharingTools } from "./sharing";
import { statsTools } from "./stats";
import { webhookTools } from "./webhooks";

export { callTool, toolError } from "./call";

export const tools = [
  ...deployTools,
  ...dropTools,
  ...aliasTools,
  ...commentTools,
  ...sharingTools,
  ...fileTools,
  ...webhookTools,
  ...domainTools,
  ...accountTools,
  ...statsTools,
  ...reportTools,
] as const;

let descriptors: Tool[] | undefined;

/** The tool descriptors of tools/list (the same in both eras), generated once. */
export function toolDescriptors(): Tool[] {
  descriptors ??= describeTools(tools);
  return descriptors;
}

export function findTool(name: string) {
  return tools.find((t) => t.name === name);
}
