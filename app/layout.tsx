import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import "./globals.css";

export const metadata: Metadata = {
  title: "dropsite: publish a static site in one request",
  description: "Send HTML, a JSON map of files or a zip; get back a URL. For people, API clients and AI agents.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        {children}
        <footer className="site-footer">
          <Link href="/report">Report abuse</Link> · <Link href="/docs">Docs</Link>
        </footer>
      </body>
    </html>
  );
}
