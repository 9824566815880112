import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

// The layers of docs/architecture.md, lowest first: a folder may import its own layer and the
// layers below it, never one above (so no two folders import each other).
export const LAYERS = [
  ["lib/env.ts", "lib/patterns.ts", "lib/plans.ts", "lib/ids.ts", "lib/hostname.ts"],
  ["lib/errors.ts", "lib/input.ts", "lib/schemas.ts", "lib/http.ts", "lib/http-routes.ts", "lib/csp.ts", "lib/secret.ts", "lib/rules"],
  ["lib/db", "lib/storage", "lib/ratelimit", "lib/files", "lib/access"],
  ["lib/context.ts", "lib/serve"],
  ["lib/oauth", "lib/auth", "lib/billing", "lib/vanity.ts", "lib/health.ts", "lib/idempotency.ts", "lib/webhooks"],
  ["lib/deploy"],
  ["lib/drops", "lib/device", "lib/domains"],
  ["lib/mcp", "lib/openapi", "lib/plane"],
  ["app", "pages", "cli", "proxy.ts", "scripts", "bench", "tests"],
];
const layerZones = LAYERS.slice(0, -1).flatMap((layer, i) =>
  layer.map((target) => ({
    target: `./${target}`,
    from: LAYERS.slice(i + 1).flat().map((f) => `./${f}`),
    message: "imports a higher layer (docs/architecture.md)",
  })),
);

export default tseslint.config(
  { ignores: [".next/**", "node_modules/**", "drizzle/**", ".data/**", "test-results/**", "next-env.d.ts", "bench/results/**", "cli/dist/**"] },
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
    },
  },
  // No import cycles: each layer imports only the layers below it (docs/architecture.md).
  {
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver": undefined,
      "import-x/resolver-next": [
        importX.createNodeResolver({ extensions: [".ts", ".tsx", ".mjs", ".js"], tsconfig: { configFile: "tsconfig.json" } }),
      ],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": ["error", { zones: layerZones }],
    },
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
