import { describe, expect, it } from "vitest";
import { resolveHost } from "@/lib/serve/host";

const local = { serveDomain: "localhost:3000", appHost: "localhost:3000" };
const prod = { serveDomain: "drops.example.com", appHost: "example.com" };

describe("resolveHost", () => {
  const table: [string, string | null, typeof local, string, Record<string, string>?][] = [
    ["the app host", "localhost:3000", local, "app"],
    ["the app host in capitals with a trailing dot", "LOCALHOST.:3000", local, "app"],
    ["no host", null, local, "app"],
    ["a drop under localhost", "abc123.localhost:3000", local, "drop", { slug: "abc123" }],
    ["a drop in capitals", "ABC123.LocalHost:3000", local, "drop", { slug: "abc123" }],
    ["a drop under a production domain", "k2j3h4.drops.example.com", prod, "drop", { slug: "k2j3h4" }],
    ["a drop with the default https port", "k2j3h4.drops.example.com:443", prod, "drop", { slug: "k2j3h4" }],
    ["the production app host", "example.com", prod, "app"],
    ["an unrelated host: a possible custom domain", "evil.test", prod, "custom", { hostname: "evil.test" }],
    [
      "a suffix trick: a possible custom domain",
      "x.drops.example.com.evil.test",
      prod,
      "custom",
      { hostname: "x.drops.example.com.evil.test" },
    ],
    [
      "a look-alike without the dot: a possible custom domain",
      "xdrops.example.com",
      prod,
      "custom",
      { hostname: "xdrops.example.com" },
    ],
    ["a custom domain with a port", "Docs.Example.org.:8443", prod, "custom", { hostname: "docs.example.org" }],
    ["an internationalised custom domain", "bücher.example", prod, "custom", { hostname: "xn--bcher-kva.example" }],
    ["the app host on another port", "example.com:8080", prod, "app"],
    ["the serve domain itself", "drops.example.com", prod, "app"],
    [
      "a drop host on another port: a look-up that finds no domain",
      "k2j3h4.drops.example.com:8080",
      prod,
      "custom",
      { hostname: "k2j3h4.drops.example.com" },
    ],
    ["the same host twice (remembered) gives the same answer", "evil.test", prod, "custom", { hostname: "evil.test" }],
    ["an IPv4 address (health checks)", "10.0.0.7:3000", prod, "app"],
    ["an IPv6 address", "[::1]:3000", prod, "app"],
    ["localhost", "localhost:3000", prod, "app"],
    ["a single label", "web:3000", prod, "app"],
    ["the platform's deployment URL", "dropsite-abc123.vercel.app", prod, "app"],
    ["two labels deep", "a.b.drops.example.com", prod, "invalid-drop-host"],
    ["a label with an underscore", "a_b.drops.example.com", prod, "invalid-drop-host"],
    ["a label ending in a hyphen", "ab-.drops.example.com", prod, "invalid-drop-host"],
    ["a reserved label", "www.drops.example.com", prod, "app"],
    ["a vanity host", "acme--blog.drops.example.com", prod, "vanity", { sub: "acme", name: "blog" }],
    [
      "a vanity host whose name has hyphens",
      "acme--my-blog.drops.example.com",
      prod,
      "vanity",
      { sub: "acme", name: "my-blog" },
    ],
    ["a vanity host with a too-short sub", "ab--blog.drops.example.com", prod, "invalid-drop-host"],
    ["a vanity host with a reserved sub", "www--blog.drops.example.com", prod, "invalid-drop-host"],
    ["a wrong port", "abc.localhost:3001", local, "app"],
  ];
  it.each(table)("%s", (_name, host, cfg, kind, fields) => {
    const action = resolveHost(host, cfg);
    expect(action.kind).toBe(kind);
    if (fields) expect(action).toMatchObject(fields);
  });
});
