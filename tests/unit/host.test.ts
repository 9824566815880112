import { describe, expect, it } from "vitest";
import { previewLabel, resolveHost } from "@/lib/serve/host";

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

describe("resolveHost: preview hosts (<slug>---v<N>, <slug>---<alias>)", () => {
  const slug = "k2j3h4k2j3h4k2j3h4k2";
  const v = (version: number) => ({ slug, selector: { version } });
  const a = (alias: string) => ({ slug, selector: { alias } });
  // A label of exactly n characters: the slug, ---, and an alias padded to fit.
  const table: [string, string, typeof local, string, Record<string, unknown>?][] = [
    ["a version", `${slug}---v3.drops.example.com`, prod, "preview", v(3)],
    [
      "a version in capitals with a trailing dot",
      `${slug.toUpperCase()}---V3.DROPS.example.com.`,
      prod,
      "preview",
      v(3),
    ],
    ["a version with the default port", `${slug}---v12.drops.example.com:443`, prod, "preview", v(12)],
    ["a version under localhost with its port", `${slug}---v1.localhost:3000`, local, "preview", v(1)],
    ["a version on another port: a custom domain look-up", `${slug}---v1.drops.example.com:8080`, prod, "custom"],
    ["an alias", `${slug}---staging.drops.example.com`, prod, "preview", a("staging")],
    ["an alias with hyphens", `${slug}---pr-42.drops.example.com`, prod, "preview", a("pr-42")],
    ["the largest version", `${slug}---v2147483647.drops.example.com`, prod, "preview", v(2147483647)],
    ["v0 names no version", `${slug}---v0.drops.example.com`, prod, "invalid-drop-host"],
    ["v01 names no version (not an alias either)", `${slug}---v01.drops.example.com`, prod, "invalid-drop-host"],
    ["a version past the column", `${slug}---v2147483648.drops.example.com`, prod, "invalid-drop-host"],
    ["a huge version", `${slug}---v${"9".repeat(30)}.drops.example.com`, prod, "invalid-drop-host"],
    ["an empty selector", `${slug}---.drops.example.com`, prod, "invalid-drop-host"],
    ["an alias with a double hyphen", `${slug}---a--b.drops.example.com`, prod, "invalid-drop-host"],
    ["an alias over 16 characters", `${slug}---${"a".repeat(17)}.drops.example.com`, prod, "invalid-drop-host"],
    ["an alias of 16 characters", `${slug}---${"a".repeat(16)}.drops.example.com`, prod, "preview", a("a".repeat(16))],
    ["no slug", `---v3.drops.example.com`, prod, "invalid-drop-host"],
    [
      "split at the last ---: a slug ending in a hyphen",
      `abc----v3.drops.example.com`,
      prod,
      "preview",
      { slug: "abc-", selector: { version: 3 } },
    ],
    [
      "a slug with --: a vanity host's form, never a preview",
      `acme--blog---v2.drops.example.com`,
      prod,
      "invalid-drop-host",
    ],
    [
      "a vanity-looking host containing ---: a preview of the drop before it",
      `acme---blog.drops.example.com`,
      prod,
      "preview",
      { slug: "acme", selector: { alias: "blog" } },
    ],
    ["a reserved label before ---", `www---v1.drops.example.com`, prod, "invalid-drop-host"],
    ["an alias of 20 characters", `${"b".repeat(40)}---${"c".repeat(20)}.drops.example.com`, prod, "invalid-drop-host"],
    [
      "a label of 63 characters with a short alias",
      `${"b".repeat(55)}---stage.drops.example.com`,
      prod,
      "preview",
      { slug: "b".repeat(55), selector: { alias: "stage" } },
    ],
    [
      "a label of 63 characters naming a version",
      `${"b".repeat(57)}---v12.drops.example.com`,
      prod,
      "preview",
      { slug: "b".repeat(57), selector: { version: 12 } },
    ],
    ["a label of 64 characters", `${"b".repeat(58)}---v12.drops.example.com`, prod, "invalid-drop-host"],
    ["two labels deep", `x.${slug}---v1.drops.example.com`, prod, "invalid-drop-host"],
  ];
  it.each(table)("%s", (_name, host, cfg, kind, fields) => {
    const action = resolveHost(host, cfg);
    expect(action.kind).toBe(kind);
    if (fields) expect(action).toMatchObject(fields);
  });
});

describe("previewLabel", () => {
  it("names a version and an alias, and resolves back to them", () => {
    const slug = "k2j3h4k2j3h4k2j3h4k2";
    expect(previewLabel(slug, { version: 7 })).toBe(`${slug}---v7`);
    expect(previewLabel(slug, { alias: "pr-42" })).toBe(`${slug}---pr-42`);
    expect(resolveHost(`${previewLabel(slug, { alias: "pr-42" })}.drops.example.com`, prod)).toMatchObject({
      kind: "preview",
      slug,
      selector: { alias: "pr-42" },
    });
  });
  it("is null past 63 characters (no such host can exist)", () => {
    expect(previewLabel("b".repeat(57), { version: 12 })).toBe(`${"b".repeat(57)}---v12`);
    expect(previewLabel("b".repeat(57), { version: 123 })).toBeNull();
  });
});
