import path from "node:path";
import { Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { clientBoundary } from "../../eslint.config.mjs";

// The lint rule that keeps server code out of the browser (docs/architecture.md, "Browser code"),
// run on source text as if it were a file of the tree: a "use client" component, and a module of
// lib/files that the browser loads.

const ROOT = path.resolve(import.meta.dirname, "../..");
const linter = new Linter({ configType: "flat" });
const config = [
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parser: tseslint.parser as Linter.Parser },
    plugins: { "client-boundary": clientBoundary },
    rules: { "client-boundary/no-server-imports": "error" as const },
  },
];
const lint = (file: string, code: string) =>
  linter.verify(code, config, { filename: path.join(ROOT, file) }).map((m) => m.message);

describe("client-boundary/no-server-imports", () => {
  it("refuses a server module imported by a client component, directly or through an app/ module", () => {
    const client = `"use client";\nimport { parseEnv } from "@/lib/env";\nexport const x = parseEnv;\n`;
    expect(lint("app/_components/Probe.tsx", client)).toEqual([
      expect.stringContaining("client code imports server code (lib/env.ts)"),
    ]);
    // app/_components/Header.tsx is a server component that reads the session.
    const through = `"use client";\nimport Header from "./Header";\nexport const x = Header;\n`;
    expect(lint("app/_components/Probe.tsx", through)).toEqual([
      expect.stringContaining("app/_components/Header.tsx → lib/auth/session.ts"),
    ]);
    expect(lint("lib/files/probe.ts", `import { openDb } from "../db/client";\nexport const x = openDb;\n`)).toEqual([
      expect.stringContaining("lib/db/client.ts"),
    ]);
  });

  it("lets client code import the shared modules, types from anywhere and server actions; server files are not checked", () => {
    const client = [
      `"use client";`,
      `import { limits } from "@/lib/plans";`,
      `import { zipForDeploy } from "@/lib/files/pack";`,
      `import type { AppContext } from "@/lib/context";`,
      `import { type Env } from "@/lib/env";`,
      `import { decideDeviceAction } from "../device/actions";`,
      `export const x = [limits, zipForDeploy, decideDeviceAction] as unknown as [AppContext, Env];`,
    ].join("\n");
    expect(lint("app/_components/Probe.tsx", client)).toEqual([]);
    expect(
      lint("app/_components/Probe.tsx", `import { parseEnv } from "@/lib/env";\nexport const x = parseEnv;\n`),
    ).toEqual([]);
  });
});
