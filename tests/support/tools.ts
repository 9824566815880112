// The MCP tools the server lists, sorted: one statement of the surface that every MCP suite
// (in-process, the official clients against the built app, the Inspector CLI) checks.
export const TOOL_NAMES = [
  "add_webhook",
  "append_files",
  "delete_drop",
  "deploy_directory",
  "deploy_files",
  "deploy_html",
  "deploy_named",
  "device_authorize",
  "device_token",
  "get_drop",
  "get_limits",
  "list_drops",
  "list_versions",
  "list_webhooks",
  "preflight_files",
  "remove_webhook",
  "rollback_drop",
  "set_access",
  "upload_content",
] as const;
