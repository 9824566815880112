import type { ratePolicies } from "@/lib/ratelimit/policy";

// What every section of the docs guide (app/docs/page.tsx) says of this server: its addresses,
// the limiter's policies and the MCP configuration to paste.
export interface GuideProps {
  base: string;
  scheme: string;
  serve: string;
  serveHost: string;
  rates: ReturnType<typeof ratePolicies>;
  mcpConfig: string;
}
