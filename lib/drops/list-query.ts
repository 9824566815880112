import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { searchOwnedDrops, type DropSort, type DropStateFilter } from "../db/drop-search";
import type { AccountRow } from "../db/schema";
import { MAX_OFFSET, type AccessMode, type Drop } from "../schemas";
import { toDrop, views7d, views7dSince } from "./manage";

// The dashboard's drops list as its URL states it (/dashboard?q=&state=&sort=&size=&page=): what
// a person typed is read leniently (an unknown value is the default, never an error page), so any
// link, bookmark or hand-edited URL shows a list.

export const DROP_SORTS: readonly { value: DropSort; label: string }[] = [
  { value: "updated", label: "Last updated" },
  { value: "created", label: "Newest" },
  { value: "name", label: "Name" },
  { value: "views", label: "Most viewed (7 days)" },
];

/** `disabled` joins these once drops have a disabled_at column (the safety-admin branch). */
export const DROP_STATE_FILTERS: readonly { value: DropStateFilter; label: string }[] = [
  { value: "all", label: "All states" },
  { value: "live", label: "Live" },
  { value: "expired", label: "Expired" },
  { value: "protected", label: "Password-protected" },
  { value: "disabled", label: "Disabled by the operator" },
];

export const DROP_PAGE_SIZES = [20, 50, 100] as const;

/** Longest search the list takes; longer input is cut (a name is at most 63 characters). */
const MAX_TERM = 200;

export interface DropListQuery {
  q: string;
  state: DropStateFilter;
  sort: DropSort;
  size: number;
  page: number;
}

export const DEFAULT_DROP_LIST: DropListQuery = { q: "", state: "all", sort: "updated", size: 20, page: 1 };

type Params = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

export function parseDropListQuery(params: Params): DropListQuery {
  const state = DROP_STATE_FILTERS.find((s) => s.value === first(params.state))?.value ?? DEFAULT_DROP_LIST.state;
  const sort = DROP_SORTS.find((s) => s.value === first(params.sort))?.value ?? DEFAULT_DROP_LIST.sort;
  const size = DROP_PAGE_SIZES.find((n) => String(n) === first(params.size)) ?? DEFAULT_DROP_LIST.size;
  const rawPage = first(params.page);
  const page = /^[1-9]\d{0,9}$/.test(rawPage) ? Math.min(Number(rawPage), Math.floor(MAX_OFFSET / size)) : 1;
  return { q: first(params.q).trim().slice(0, MAX_TERM), state, sort, size, page };
}

/** The URL of the list with `change` applied to `query`; defaults are left out, so the plain list is /dashboard. */
export function dropListHref(query: DropListQuery, change: Partial<DropListQuery> = {}): string {
  const next = { ...query, ...change };
  const params = new URLSearchParams();
  for (const key of ["q", "state", "sort", "size", "page"] as const) {
    if (next[key] !== DEFAULT_DROP_LIST[key]) params.set(key, String(next[key]));
  }
  const s = params.toString();
  return s ? `/dashboard?${s}` : "/dashboard";
}

/**
 * What a search matches against: a drop's URL (https://<slug>.<SERVE_DOMAIN>/…, with or without
 * the scheme) becomes its slug; anything else is matched as typed against names and slugs.
 */
export function searchTerm(q: string, serveDomain: string): string {
  const host = serveDomain.replace(/:\d+$/, "").toLowerCase();
  const lower = q.toLowerCase();
  if (!lower.includes(host)) return lower;
  try {
    const url = new URL(lower.includes("://") ? lower : `http://${lower}`);
    if (url.hostname.endsWith(`.${host}`)) return url.hostname.slice(0, -host.length - 1);
  } catch {
    // Not a URL after all: matched as typed.
  }
  return lower;
}

export interface ListedDrop extends Drop {
  access: AccessMode;
  views_7d: number;
}

export async function listDropsFor(
  ctx: AppContext,
  account: AccountRow,
  query: DropListQuery,
): Promise<{ total: number; drops: ListedDrop[] }> {
  const { total, rows } = await withDb(() =>
    searchOwnedDrops(ctx.db, account.id, {
      term: searchTerm(query.q, ctx.env.SERVE_DOMAIN),
      state: query.state,
      sort: query.sort,
      limit: query.size,
      offset: (query.page - 1) * query.size,
      now: new Date(ctx.now()),
      viewsSince: views7dSince(ctx.now()),
    }),
  );
  // The views sort read each drop's views with its row; the other orders read the page's.
  const views =
    query.sort === "views"
      ? new Map(rows.map((r) => [r.id, r.views ?? 0]))
      : await views7d(
          ctx,
          rows.map((r) => r.id),
        );
  return {
    total,
    drops: rows.map((r) => ({
      ...toDrop({ ...r, accessPasswordHash: null, claimTokenHash: null }, ctx),
      access: r.accessMode,
      views_7d: views.get(r.id) ?? 0,
    })),
  };
}
