import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type BuildOptions, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

// The self-hosted data plane (lib/plane/node.ts) answers drop hosts and the deploy-body routes
// without the framework. Bundled with the build's own options, it must not load Next or
// next-auth: one import of lib/auth/session (say, through lib/deploy/request.ts) would pull them
// into server.mjs's first module and every request through it.

const root = path.resolve(import.meta.dirname, "../..");
let meta: Metafile;

beforeAll(async () => {
  const script = pathToFileURL(path.join(root, "scripts", "build-data-plane.mjs")).href;
  const { dataPlaneOptions } = (await import(script)) as { dataPlaneOptions: BuildOptions };
  meta = (await build({ ...dataPlaneOptions, write: false, metafile: true, logLevel: "silent" })).metafile;
});

const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

describe("the data-plane bundle", () => {
  it("imports neither next nor next-auth (nor any of their subpaths)", () => {
    const external = Object.values(meta.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    expect(external.length).toBeGreaterThan(0);
    const framework = external.filter((p) => ["next", "next-auth", "@auth/core"].includes(packageOf(p)));
    expect(framework).toEqual([]);
  });

  it("loads the packages of a store, a rate limiter, the OAuth provider or the render browser only when one is used", () => {
    // What the entry and the chunks it imports statically import statically: what a start loads.
    const entry = Object.keys(meta.outputs).find((o) => meta.outputs[o]!.entryPoint === "lib/plane/node.ts")!;
    const atStart = new Set<string>();
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of meta.outputs[file]!.imports) {
        if (i.kind !== "import-statement") continue;
        if (i.external) atStart.add(packageOf(i.path));
        else walk(i.path);
      }
    };
    walk(entry);
    const onDemand = [
      "@aws-sdk/client-s3",
      "@vercel/blob",
      "redis",
      "@upstash/redis",
      "oidc-provider",
      "playwright-core",
    ];
    expect(atStart.has("drizzle-orm")).toBe(true);
    expect(onDemand.filter((p) => atStart.has(p))).toEqual([]);
    // Still in the bundle: loaded by a dynamic import when configured.
    const anywhere = new Set(
      Object.values(meta.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => packageOf(i.path))),
    );
    expect(onDemand.filter((p) => !anywhere.has(p))).toEqual([]);
  });

  it("holds the deploy handlers and no module of app/ or lib/auth/session", () => {
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("lib/deploy/handlers.ts");
    expect(inputs.filter((f) => f.startsWith("app/") || f === "lib/auth/session.ts")).toEqual([]);
  });
});
