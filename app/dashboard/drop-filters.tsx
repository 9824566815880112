import Link from "next/link";
import {
  DEFAULT_DROP_LIST,
  DROP_PAGE_SIZES,
  DROP_SORTS,
  DROP_STATE_FILTERS,
  type DropListQuery,
} from "@/lib/drops/list-query";
import { Button, Field, Select } from "../_components/ui";

/**
 * The drops list's search, state filter, sort and page size: a plain GET form, so the list is
 * the URL (bookmark it, go back to it) and works before (or without) the page's script.
 */
export function DropFilters({ query }: { query: DropListQuery }) {
  const changed =
    query.q !== DEFAULT_DROP_LIST.q ||
    query.state !== DEFAULT_DROP_LIST.state ||
    query.sort !== DEFAULT_DROP_LIST.sort ||
    query.size !== DEFAULT_DROP_LIST.size;
  return (
    <form
      method="get"
      action="/dashboard"
      role="search"
      aria-label="Drops"
      className="filters"
      data-testid="drop-filters"
    >
      <Field
        id="drops-q"
        name="q"
        kind="search"
        label="Search"
        defaultValue={query.q}
        placeholder="Name, slug or URL"
        maxLength={200}
        className="filters-q"
      />
      <Select id="drops-state" name="state" label="State" options={DROP_STATE_FILTERS} defaultValue={query.state} />
      <Select id="drops-sort" name="sort" label="Sort by" options={DROP_SORTS} defaultValue={query.sort} />
      <Select
        id="drops-size"
        name="size"
        label="Per page"
        options={DROP_PAGE_SIZES.map((n) => ({ value: n, label: String(n) }))}
        defaultValue={query.size}
      />
      <div className="filters-go">
        <Button type="submit">Apply</Button>
        {changed && <Link href="/dashboard">Reset</Link>}
      </div>
    </form>
  );
}
