// Numbers as the docs write them. Every number the guide shows comes from the plan table
// (lib/plans.ts) or the limiter's constants through these, so the docs cannot drift from what the
// service enforces (tests/unit/prose-numbers, tests/unit/table-change).

const MB = 1024 * 1024;
export const mb = (n: number) => `${n / MB} MB`;
export const inDays = (s: number) => `${s / 86_400} days`;
export const count = (n: number) => n.toLocaleString("en-US");
export const num = (n: number | null, none = "no limit") => (n === null ? none : n.toLocaleString("en-US"));
