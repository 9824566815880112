import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { allDocs, findDoc } from "../_markdown/files";
import { Markdown } from "../_markdown/Markdown";

// GET /docs/<name>: one of the project's docs/*.md, rendered when the app is built (one static
// page per file; any other name is the 404). The Markdown file is the text; this page adds none.

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
      <p className="docs-kicker">
        <Link href="/docs">Docs</Link> · <code>docs/{doc.name}.md</code>
      </p>
      <Markdown tree={doc.tree} names={new Set(docs.map((d) => d.name))} />
      <nav aria-label="Documents" className="docs-section">
        <p>
          All documents: <Link href="/docs">the guide</Link>
          {docs.map((d) => (
            <span key={d.name}>
              {" · "}
              {d.name === doc.name ? <span aria-current="page">{d.name}</span> : <Link href={`/docs/${d.name}`}>{d.name}</Link>}
            </span>
          ))}
        </p>
      </nav>
    </main>
  );
}
