// The HTML 404 of the app host for paths no route claims (app/[...path]/route.ts). A route
// handler cannot render React pages, so this is one small self-contained document styled like
// the site (app/not-found.tsx is the same page for pages that call notFound()).

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function notFoundHtml(pathname: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Page not found · dropsite</title>
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<style>
*{box-sizing:border-box}body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;color:#16181d}
header,main{max-width:60rem;margin:0 auto;padding:1rem 1.25rem}header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #e3e6ec;flex-wrap:wrap;gap:.5rem}
nav{display:flex;gap:1.25rem}a{color:#3b5bdb}.brand{font-weight:700;text-decoration:none;color:#16181d;font-size:1.15rem}
h1{font-size:1.8rem;margin:2rem 0 .5rem}code{font-family:ui-monospace,monospace;background:#f4f5f8;border-radius:4px;padding:.05rem .3rem;overflow-wrap:anywhere}
.muted{color:#5b6270}:focus-visible{outline:3px solid #364fc7;outline-offset:2px}
</style>
</head>
<body>
<header><a class="brand" href="/">dropsite</a><nav aria-label="Main"><a href="/docs">Docs</a><a href="/#pricing">Pricing</a><a href="/dashboard">Dashboard</a></nav></header>
<main>
<h1>Page not found</h1>
<p>There is no page at <code>${escape(pathname)}</code> on this site.</p>
<p class="muted">Published drops live on their own addresses (<code>https://&lt;slug&gt;.…/</code>), never under this host.</p>
<p><a href="/">Home</a> · <a href="/docs">Docs</a> · <a href="/dashboard">Dashboard</a> · <a href="/report">Report abuse</a></p>
</main>
</body>
</html>
`;
}
