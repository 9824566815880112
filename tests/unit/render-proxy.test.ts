import { describe, expect, it } from "vitest";
import { reachRule } from "@/lib/render/browser";
import { isOwnHost, reachable } from "@/lib/render/proxy";

// Where the render check's browser may connect (lib/render/proxy.ts): the drop hosts of
// SERVE_DOMAIN wherever they resolve, other hosts only at public addresses, never the app host.

const rule = reachRule({ BASE_URL: "https://app.example.com", SERVE_DOMAIN: "drops.example.net" });
const local = reachRule({ BASE_URL: "http://localhost:3000", SERVE_DOMAIN: "drops.localhost:3000" });

describe("the drop hosts", () => {
  it.each([
    ["abc.drops.example.net", 443, true],
    ["ABC.Drops.Example.Net.", 80, true],
    ["blog--acme.drops.example.net", 443, true],
    ["abc.drops.example.net", 8080, false],
    ["drops.example.net", 443, false],
    ["abc.drops.example.net.evil.com", 443, false],
    ["app.example.com", 443, false],
  ] as const)("%s:%i is a drop host: %s", (host, port, own) => {
    expect(isOwnHost(rule, host, port)).toBe(own);
  });

  it("a local install's drop hosts are on loopback at SERVE_DOMAIN's port, and only there", async () => {
    expect(await reachable(local, "abc.drops.localhost", 3000)).toEqual({ address: "127.0.0.1", family: 4 });
    await expect(reachable(local, "abc.drops.localhost", 3001)).rejects.toThrow();
    await expect(reachable(local, "localhost", 3000)).rejects.toThrow(/app host/);
  });
});

describe("every other host", () => {
  it.each([
    "127.0.0.1",
    "::1",
    "10.0.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.100.100.200",
    "::ffff:127.0.0.1",
    "fd00:ec2::254",
  ])("%s is refused", async (host) => {
    await expect(reachable(rule, host, 80)).rejects.toThrow(/loopback, private, link-local/);
  });

  it("a public address is reachable on any port; the app host never", async () => {
    expect(await reachable(rule, "93.184.216.34", 8443)).toEqual({ address: "93.184.216.34", family: 4 });
    await expect(reachable(rule, "app.example.com", 443)).rejects.toThrow(/app host/);
  });
});
