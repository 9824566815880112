import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { notFoundHtml } from "@/app/_components/not-found-html";

// The site's palette (the :root block of app/globals.css) meets WCAG 2.2 AA contrast: every text
// colour on every surface at least 4.5:1 (1.4.3), every control boundary and the focus ring at
// least 3:1 (1.4.11), text on a filled control at least 4.5:1 against its fill. The groups are
// the comments in the block, so a colour added there is checked without touching this file, and
// a colour written anywhere else in the stylesheet fails here. The browser tests run axe on
// every page as well (tests/e2e/accessibility.test.ts); this catches a lowered colour in a
// second, on states no page may be showing.

const CSS_FILE = path.resolve(import.meta.dirname, "../../app/globals.css");

/** Minimum contrast of each group against every surface; surfaces, on-fill and decoration are handled apart. */
const AGAINST_SURFACES = { text: 4.5, "large-text": 3, ui: 3 } as const;
const GROUPS = ["surfaces", ...Object.keys(AGAINST_SURFACES), "on-fill", "decoration"];

/** WCAG 2.x relative luminance of #rgb or #rrggbb. */
function luminance(hex: string): number {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new Error(`not a #rgb or #rrggbb colour: ${hex}`);
  const h = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join("") : m[1]!;
  const [r, g, b] = [0, 2, 4]
    .map((i) => parseInt(h.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours, 1 to 21. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

interface Palette {
  /** Every custom property of :root with its value. */
  vars: Map<string, string>;
  /** Group name → the properties declared under its comment. */
  groups: Map<string, string[]>;
  /** The stylesheet without the :root block. */
  rest: string;
}

function readPalette(css: string): Palette {
  const root = /:root\s*\{([^}]*)\}/.exec(css);
  if (!root) throw new Error("app/globals.css has no :root block");
  const vars = new Map<string, string>();
  const groups = new Map<string, string[]>();
  let group: string | null = null;
  for (const token of root[1]!.matchAll(/\/\*\s*([\w-]+):[^*]*\*\/|(--[\w-]+)\s*:\s*([^;]+);/g)) {
    if (token[1]) {
      group = token[1];
      if (!GROUPS.includes(group)) throw new Error(`unknown palette group "${group}" (known: ${GROUPS.join(", ")})`);
      groups.set(group, []);
    } else if (token[2]) {
      if (!group) throw new Error(`${token[2]} is in no palette group`);
      vars.set(token[2], token[3]!.trim());
      groups.get(group)!.push(token[2]);
    }
  }
  return { vars, groups, rest: css.slice(0, root.index) + css.slice(root.index + root[0].length) };
}

/** What falls short in a palette: one line per pair, naming both properties and the ratio. */
function shortfalls(p: Palette): string[] {
  const out: string[] = [];
  const surfaces = p.groups.get("surfaces") ?? [];
  const check = (fg: string, bg: string, min: number, what: string) => {
    const [a, b] = [p.vars.get(fg), p.vars.get(bg)];
    if (a === undefined || b === undefined)
      return void out.push(`${what} ${fg} on ${bg}: ${a === undefined ? fg : bg} is not defined`);
    const ratio = contrast(a, b);
    if (ratio < min) out.push(`${what} ${fg} (${a}) on ${bg} (${b}): ${ratio.toFixed(2)}:1, needs ${min}:1`);
  };
  for (const [group, min] of Object.entries(AGAINST_SURFACES))
    for (const fg of p.groups.get(group) ?? []) for (const bg of surfaces) check(fg, bg, min, group);
  for (const on of p.groups.get("on-fill") ?? []) {
    if (!on.startsWith("--on-")) out.push(`on-fill ${on} must be named --on-<fill>`);
    else check(on, `--${on.slice("--on-".length)}`, 4.5, "on-fill");
  }
  return out;
}

const css = readFileSync(CSS_FILE, "utf8");
const palette = readPalette(css);

describe("the contrast formula", () => {
  it("agrees with axe's measurement of the badge issue 31 reported (#2b8a3e on #ebfbee: 4.06:1), and spans 1 to 21", () => {
    expect(contrast("#2b8a3e", "#ebfbee")).toBeCloseTo(4.06, 1);
    expect(contrast("#000", "#fff")).toBeCloseTo(21, 5);
    expect(contrast("#777777", "#777777")).toBe(1);
  });

  it("finds a palette whose text is too light, a fill that is missing, a colour in no group (so the checks below can fail)", () => {
    const lowered = readPalette(css.replace(/--muted:\s*#[0-9a-f]+;/i, "--muted: #9aa0ab;"));
    expect(shortfalls(lowered).filter((l) => l.startsWith("text --muted"))).not.toEqual([]);
    const noFill = readPalette(":root { /* on-fill: text on a fill */ --on-brand: #fff; }");
    expect(shortfalls(noFill)).toEqual(["on-fill --on-brand on --brand: --brand is not defined"]);
    expect(() => readPalette(":root { --loose: #fff; }")).toThrow("--loose is in no palette group");
  });
});

describe("the palette in app/globals.css", () => {
  it("has surfaces, text, ui, on-fill and decoration colours", () => {
    for (const g of ["surfaces", "text", "ui", "on-fill", "decoration"])
      expect(palette.groups.get(g)?.length, g).toBeGreaterThan(0);
  });

  it("reaches WCAG 2.2 AA: text 4.5:1 (large text 3:1) on every surface, controls and focus 3:1, text on fills 4.5:1", () => {
    expect(shortfalls(palette)).toEqual([]);
  });

  it("is the only place the stylesheet names a colour: every other rule uses var()", () => {
    const literals = [
      ...palette.rest.matchAll(
        /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?|oklch|lab|lch|hwb)\(|(?<![\w-])(?:white|black|red|green|blue|gray|grey)(?![\w-])/gi,
      ),
    ].map((m) => {
      const line = palette.rest.slice(0, m.index).split("\n").length;
      return `${m[0]} near: ${palette.rest.split("\n")[line - 1]?.trim().slice(0, 80)}`;
    });
    expect(literals).toEqual([]);
  });

  it("is what the self-contained 404 page of the app host uses too (a route handler cannot load the stylesheet)", () => {
    const html = notFoundHtml("/x");
    const used = [...html.matchAll(/#[0-9a-f]{6}\b|#[0-9a-f]{3}\b/gi)].map((m) => m[0].toLowerCase());
    const known = new Set([...palette.vars.values()].map((v) => v.toLowerCase()));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((c) => !known.has(c))).toEqual([]);
  });
});
