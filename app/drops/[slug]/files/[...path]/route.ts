import { routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { getContext } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { filePathOf, isSignedRead, readSignedFile, readVersionFile } from "@/lib/drops/readback";

export const dynamic = "force-dynamic";

const byCredential = withAccount<{ slug: string }>(async ({ req, params, ctx, caller }) =>
  readVersionFile(
    ctx,
    caller.account,
    params.slug,
    filePathOf(req, params.slug) ?? "",
    new URL(req.url).searchParams.get("version"),
  ),
);

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/files/{path} – one file's bytes: with a credential, or as a signed read URL
  GET: async (req, params) => {
    if (!isSignedRead(req)) return byCredential(req, params);
    const path = filePathOf(req, params.slug);
    if (path === null) throw notFound();
    return readSignedFile(await getContext(), params.slug, path, req);
  },
});
