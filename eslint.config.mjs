import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

// The layers of docs/architecture.md, lowest first: a folder may import its own layer and the
// layers below it, never one above (so no two folders import each other).
export const LAYERS = [
  [
    "lib/env.ts",
    "lib/patterns.ts",
    "lib/plans.ts",
    "lib/ids.ts",
    "lib/hostname.ts",
    "lib/concurrency.ts",
    "lib/clock.ts",
    "client",
  ],
  [
    "lib/errors.ts",
    "lib/input.ts",
    "lib/schemas",
    "lib/http.ts",
    "lib/http-routes.ts",
    "lib/csp.ts",
    "lib/secret.ts",
    "lib/rules",
    "lib/log",
  ],
  [
    "lib/db",
    "lib/storage",
    "lib/ratelimit",
    "lib/files",
    "lib/access",
    "lib/mail",
    "lib/scan",
    "lib/metrics",
    "lib/tracing",
  ],
  ["lib/context.ts", "lib/serve"],
  [
    "lib/oauth",
    "lib/auth",
    "lib/billing",
    "lib/vanity.ts",
    "lib/health.ts",
    "lib/idempotency.ts",
    "lib/webhooks",
    "lib/safety",
    "lib/teams",
  ],
  ["lib/deploy", "lib/render"],
  ["lib/drops", "lib/device", "lib/domains", "lib/stats", "lib/review"],
  ["lib/mcp", "lib/openapi", "lib/plane", "lib/admin"],
  ["app", "pages", "cli", "action", "proxy.ts", "instrumentation.ts", "scripts", "bench", "tests"],
];
const layerZones = LAYERS.slice(0, -1).flatMap((layer, i) =>
  layer.map((target) => ({
    target: `./${target}`,
    from: LAYERS.slice(i + 1)
      .flat()
      .map((f) => `./${f}`),
    message: "imports a higher layer (docs/architecture.md)",
  })),
);

// Code that runs in the browser: the "use client" components and what they import. From lib/ it may
// import (values; types are erased) only CLIENT_LIB, the modules shared with the command-line client
// and the server that need no server (no process.env, database, store or secret); everything else
// in lib/ is server-only. (The `server-only` and `client-only` marker packages are not dependencies
// of this project, and `server-only` throws outside Next's server bundles: in vitest, the scripts
// and the data plane.) The rule follows a client file's value imports through app/ files too.
export const CLIENT_LIB = [
  "lib/files",
  "lib/plans.ts",
  "lib/patterns.ts",
  "lib/concurrency.ts",
  "lib/storage/types.ts",
];
const root = import.meta.dirname;
const valueImports = (source) => [...source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]);
const resolveLocal = (from, spec) => {
  const base = spec.startsWith("@/")
    ? path.join(root, spec.slice(2))
    : spec.startsWith(".")
      ? path.resolve(path.dirname(from), spec)
      : null;
  if (base === null) return null;
  return (
    ["", ".ts", ".tsx", "/index.ts"].map((ext) => base + ext).find((f) => existsSync(f) && !f.endsWith("/")) ?? base
  );
};
const isDirective = (source, word) => new RegExp(`^(\\s|//[^\\n]*\\n)*["']use ${word}["']`).test(source);
/** The first import of a client file (or of an app/ file it imports) that reaches server code, or null. */
function serverReach(file, spec, seen = new Set()) {
  if (spec.startsWith("node:")) return spec;
  const target = resolveLocal(file, spec);
  if (target === null) return null;
  const rel = path.relative(root, target).split(path.sep).join("/");
  if (rel.startsWith("lib/")) return CLIENT_LIB.some((c) => rel === c || rel.startsWith(`${c}/`)) ? null : rel;
  if (!rel.startsWith("app/") || seen.has(rel) || !existsSync(target)) return null;
  seen.add(rel);
  const source = readFileSync(target, "utf8");
  if (isDirective(source, "server")) return null; // server actions: the browser gets references
  for (const s of valueImports(source)) {
    const hit = serverReach(target, s, seen);
    if (hit) return `${rel} → ${hit}`;
  }
  return null;
}
export const clientBoundary = {
  rules: {
    "no-server-imports": {
      meta: { type: "problem", schema: [] },
      create(context) {
        const file = context.filename;
        const rel = path.relative(root, file).split(path.sep).join("/");
        const source = context.sourceCode.getText();
        const client =
          isDirective(source, "client") ||
          (rel.startsWith("lib/") && CLIENT_LIB.some((c) => rel === c || rel.startsWith(`${c}/`)));
        if (!client) return {};
        return {
          ImportDeclaration(node) {
            if (
              node.importKind === "type" ||
              (node.specifiers.every((s) => s.importKind === "type") && node.specifiers.length > 0)
            )
              return;
            const hit = serverReach(file, node.source.value);
            if (hit)
              context.report({
                node,
                message: `client code imports server code (${hit}); only ${CLIENT_LIB.join(", ")} from lib/ (docs/architecture.md)`,
              });
          },
        };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "drizzle/**",
      ".data/**",
      "test-results/**",
      "next-env.d.ts",
      "bench/results/**",
      "cli/dist/**",
      "client/schema.ts",
      "client/dist/**",
      "action/dist/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  nextPlugin.configs["core-web-vitals"],
  reactHooks.configs.flat.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Adapters, route handlers and NextAuth callbacks are async because their interface returns a Promise.
      "@typescript-eslint/require-await": "off",
      // A type-only import says so (and is erased from every bundle): \`import type\`, never \`import()\` in a type.
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "separate-type-imports" }],
      // SDKs whose root entry builds the schemas of a whole API when imported: their standalone
      // functions instead (docs/benchmarks.md, 2026-11-27 (10:40–12:30), "What the app's heap held").
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@vercel/sdk",
              message:
                "its root entry loads ~410 MB of schemas; use VercelCore from @vercel/sdk/core.js and @vercel/sdk/funcs/*",
            },
          ],
        },
      ],
    },
  },
  // No import cycles: each layer imports only the layers below it (docs/architecture.md).
  {
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver": undefined,
      "import-x/resolver-next": [
        importX.createNodeResolver({
          extensions: [".ts", ".tsx", ".mjs", ".js"],
          tsconfig: { configFile: "tsconfig.json" },
        }),
      ],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": ["error", { zones: layerZones }],
    },
  },
  // Browser code imports no server code (CLIENT_LIB above).
  {
    files: ["app/**/*.tsx", "lib/**/*.ts"],
    plugins: { "client-boundary": clientBoundary },
    rules: { "client-boundary/no-server-imports": "error" },
  },
  {
    files: ["tests/**"],
    rules: {
      // Tests read response bodies as untyped JSON on purpose: the expect() on each field is the check.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  // Plain JavaScript files (server.mjs, this config) are outside tsconfig's program: lint them without types.
  { files: ["**/*.mjs", "**/*.js"], ...tseslint.configs.disableTypeChecked },
);
