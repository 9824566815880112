// Types of eslint.config.mjs for the one test that reads its layer table (tests/unit/architecture.test.ts).
export const LAYERS: string[][];
declare const config: unknown;
export default config;
