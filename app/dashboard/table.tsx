import type { CSSProperties, ReactNode } from "react";

/**
 * A table of the dashboard in its wrapper (which scrolls on a narrow screen where the table does
 * not stack), with its column headers: a last column without a visible heading (the rows'
 * buttons) is named by `hidden` for screen readers, as is the whole table by `caption`.
 */
export function Table({
  columns,
  hidden,
  caption,
  className,
  testId,
  style,
  children,
}: {
  columns: string[];
  hidden?: string;
  caption?: string;
  className: string;
  testId?: string;
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={className} data-testid={testId} style={style}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
            {hidden && (
              <th scope="col">
                <span className="visually-hidden">{hidden}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
