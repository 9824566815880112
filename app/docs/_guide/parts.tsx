import Link from "next/link";
import type { ReactNode } from "react";

// The guide's building blocks: sections whose headings link to themselves (error envelopes and
// other pages link to their ids), and links into the rendered documents.

/** A link to a rendered doc (docs/<name>.md at /docs/<name>), optionally to one of its headings. */
export function DocLink({ to, children }: { to: string; children: ReactNode }) {
  return <Link href={`/docs/${to}`}>{children}</Link>;
}

export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} className="docs-section">
      <h2>
        <a href={`#${id}`}>{title}</a>
      </h2>
      {children}
    </section>
  );
}

export function Sub({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <div id={id} className="docs-sub">
      <h3>
        <a href={`#${id}`}>{title}</a>
      </h3>
      {children}
    </div>
  );
}
