import type { ReactNode } from "react";

// A wide table that may scroll sideways on a phone. Keyboard users scroll it with the arrow keys
// once it has focus, so it takes focus (tabIndex 0) and, being focusable, is a region with a
// name that says what it holds (WCAG 2.1.1; axe's scrollable-region-focusable).
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="docs-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
