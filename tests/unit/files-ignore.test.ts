import { describe, expect, it } from "vitest";
import { createFilter, ignoreFilesAmong, selectFiles } from "@/lib/files/ignore";

// The one rule for what a folder deploy publishes (web page and command-line client).

const files = (...paths: string[]) => paths.map((path) => ({ path }));
const kept = (sel: { kept: { path: string }[] }) => sel.kept.map((f) => f.path).sort();

describe("what a folder deploy leaves out", () => {
  const tree = files(
    "site/index.html",
    "site/.env",
    "site/.env.production",
    "site/.DS_Store",
    "site/.gitignore",
    "site/.git/config",
    "site/node_modules/x/index.js",
    "site/dist/app.js",
    "site/logs/today.log",
    "site/notes.log",
    "site/keep.log",
    "site/.well-known/security.txt",
    "site/sub/.dropignore",
    "site/sub/draft.html",
    "site/sub/page.html",
    "site/other/draft.html",
  );
  const rules = { "site/.gitignore": "*.log\n!keep.log\ndist/\n", "site/sub/.dropignore": "draft.html\n" };

  it("keeps content; drops .git, node_modules, ignore files, matched paths and dotfiles", () => {
    const sel = selectFiles(tree, rules);
    expect(kept(sel)).toEqual([
      "site/.well-known/security.txt",
      "site/index.html",
      "site/keep.log",
      "site/other/draft.html",
      "site/sub/page.html",
    ]);
    const reasons = Object.fromEntries(sel.skipped.map((s) => [s.file.path, s.reason]));
    expect(reasons).toMatchObject({
      "site/.env": "dotfile",
      "site/.DS_Store": "dotfile",
      "site/.gitignore": "ignore-file",
      "site/.git/config": "always",
      "site/node_modules/x/index.js": "always",
      "site/dist/app.js": "ignored",
      "site/logs/today.log": "ignored",
      "site/sub/draft.html": "ignored",
    });
    expect(sel.skipped.find((s) => s.file.path === "site/sub/draft.html")?.source).toBe("site/sub/.dropignore");
  });

  it("a .dropignore applies only inside its own folder", () => {
    expect(kept(selectFiles(files("a/draft.html", "b/draft.html"), { "a/.dropignore": "draft.html" }))).toEqual([
      "b/draft.html",
    ]);
  });

  it("publishes dotfiles only when asked, and ignore rules still win", () => {
    const sel = selectFiles(
      files(".env", ".config/x.json", "secret.key", "index.html"),
      { ".gitignore": "secret.key" },
      { includeDotfiles: true },
    );
    expect(kept(sel)).toEqual([".config/x.json", ".env", "index.html"]);
  });

  it("a walker can prune a folder without descending", () => {
    const skip = createFilter({ ".gitignore": "build/" });
    expect(skip("build", true)?.reason).toBe("ignored");
    expect(skip("node_modules", true)?.reason).toBe("always");
    expect(skip("src", true)).toBeNull();
  });

  it("finds the ignore files to read among the picked paths", () => {
    expect(ignoreFilesAmong(["a/.gitignore", "a/x.gitignore", ".dropignore", "b.html"])).toEqual([
      "a/.gitignore",
      ".dropignore",
    ]);
  });
});
