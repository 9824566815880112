import { env } from "../env";
import type { HostConfig } from "../serve/host";

// The host configuration every part of the data plane resolves Hosts with, read once.

let hostConfig: HostConfig | undefined;

export function config(): HostConfig {
  if (!hostConfig) {
    const e = env();
    hostConfig = { serveDomain: e.SERVE_DOMAIN, appHost: new URL(e.BASE_URL).host };
  }
  return hostConfig;
}
