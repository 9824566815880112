import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SiteRules } from "@/app/_components/SiteRules";
import type { DropDetail } from "@/lib/schemas";

// The per-drop dashboard page's list of site rules: labelled tables in file order, with the
// forced mark explained, and nothing for a drop without rules.

const base = { redirect_rules: 0, header_rules: 0, rules: { redirects: [], headers: [] } } as unknown as DropDetail;

describe("the site rules on the drop page", () => {
  it("lists redirects and headers in labelled tables", () => {
    const drop = {
      ...base,
      redirect_rules: 2,
      header_rules: 1,
      rules: {
        redirects: [
          { line: 2, from: "/old", to: "/new", status: 301, force: false },
          { line: 3, from: "/app/*", to: "/app/index.html", status: 200, force: true },
        ],
        headers: [{ line: 1, path: "/*", headers: [{ name: "Cross-Origin-Opener-Policy", value: "same-origin" }] }],
      },
    } as DropDetail;
    const html = renderToStaticMarkup(createElement(SiteRules, { drop }));
    expect(html).toContain('<section class="card" aria-labelledby="rules-title"');
    expect(html).toContain('<h2 id="rules-title">Site rules</h2>');
    expect(html).toContain("<caption>Redirects and rewrites (2 rules)</caption>");
    expect(html).toContain("<caption>Headers (1 path)</caption>");
    expect(html.match(/<th scope="col">/g)).toHaveLength(7);
    expect(html.indexOf("/old")).toBeLessThan(html.indexOf("/app/*"));
    expect(html).toContain('200<abbr title="forced: applies even when a file answers the path">!</abbr>');
    expect(html).toContain("<code>Cross-Origin-Opener-Policy: same-origin</code>");
  });

  it("shows nothing for a drop without rules", () => {
    expect(renderToStaticMarkup(createElement(SiteRules, { drop: base }))).toBe("");
  });
});
