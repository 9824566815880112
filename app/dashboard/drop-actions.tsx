"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { CopyButton } from "../_components/CodeBlock";
import { deleteDropAction } from "./actions";
import { ConfirmDialog } from "./confirm-dialog";
import { host } from "./format";
import { Problem } from "./problem";
import { useAction } from "./use-action";

// Copy and delete on the page of one drop; after deleting, back to the dashboard.
export function DropActions({ slug, url, name }: { slug: string; url: string; name: string | null }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const { pending, failure, run } = useAction();
  return (
    <>
      <p className="row" style={{ justifyContent: "flex-start" }}>
        <CopyButton text={url} label="Copy the URL" className="button small" />
        <a className="button small secondary" href={url} target="_blank" rel="noopener">
          Open
        </a>
        <button type="button" className="button small secondary" onClick={() => setConfirming(true)}>
          Delete
        </button>
      </p>
      <Problem failure={failure} />
      <ConfirmDialog
        open={confirming}
        title={`Delete ${name ?? slug}?`}
        body={`${host(url)} stops serving at once and its files are removed. This cannot be undone.`}
        confirm="Confirm delete"
        busy={pending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          run(() => deleteDropAction(slug), {
            onDone: () => setConfirming(false),
            onOk: () => router.push("/dashboard"),
            refresh: false,
          })
        }
      />
    </>
  );
}
