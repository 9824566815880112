// Types of eslint.config.mjs for the tests that read its layer table and client rule (tests/unit/architecture.test.ts, client-boundary.test.ts).
import type { ESLint } from "eslint";

export const LAYERS: string[][];
export const CLIENT_LIB: string[];
export const clientBoundary: ESLint.Plugin;
declare const config: unknown;
export default config;
