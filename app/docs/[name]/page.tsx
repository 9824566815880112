import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { allDocs, findDoc } from "../_markdown/files";
import { Markdown } from "../_markdown/Markdown";

// GET /docs/<name>: one of the project's docs/*.md (the names are fixed when the app is built; any
// other name is the 404). The Markdown file is the text; this page adds none.

export const dynamicParams = false;

export function generateStaticParams(): { name: string }[] {
  return allDocs().map((d) => ({ name: d.name }));
}

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  const doc = findDoc((await params).name);
  return { title: doc ? `${doc.title} · dropsite docs` : "dropsite docs" };
}

export default async function DocPage({ params }: { params: Promise<{ name: string }> }) {
  const doc = findDoc((await params).name);
  if (!doc) notFound();
  const docs = allDocs();
  return (
    <main className="docs">
      {/* The link alone on its line: the kicker's links are not underlined (axe's link-in-text-block). */}
      <p className="docs-kicker">
        <Link href="/docs">All docs</Link>
      </p>
      <Markdown tree={doc.tree} names={new Set(docs.map((d) => d.name))} />
      <nav aria-label="Documents" className="docs-section">
        <p>
          This page is <code>docs/{doc.name}.md</code>. All documents: <Link href="/docs">the guide</Link>
          {docs.map((d) => (
            <span key={d.name}>
              {" · "}
              {d.name === doc.name ? (
                <span aria-current="page">{d.name}</span>
              ) : (
                <Link href={`/docs/${d.name}`}>{d.name}</Link>
              )}
            </span>
          ))}
        </p>
      </nav>
    </main>
  );
}
