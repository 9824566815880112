import type { ReactNode } from "react";
import { Header } from "../_components/Header";

// The docs under the site header like every page. The header lives here, not in the page, so
// the page itself stays a synchronous component (tests render it to check its anchors).
export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <Header />
      {children}
    </>
  );
}
