"use client";

import { useState } from "react";
import { isDropName, NAME_PATTERN } from "@/lib/patterns";
import { DropZone } from "../_components/DropZone";

/** Deploy under a name (paid plans): the drop zone appears once the name is valid; a name deployed again keeps its URL. */
export function NamedDeploy() {
  const [name, setName] = useState("");
  const valid = isDropName(name);
  return (
    <>
      <p>
        <label htmlFor="drop-name">Drop name</label>
        <br />
        <input
          id="drop-name"
          type="text"
          value={name}
          onChange={(e) => setName(e.target.value.toLowerCase())}
          placeholder="my-site"
          pattern={NAME_PATTERN.source.slice(1, -1)}
        />
      </p>
      {valid ? (
        <DropZone endpoint="/dashboard/upload" preflightEndpoint="/dashboard/preflight" name={name} />
      ) : (
        <p className="muted">
          Lowercase letters, digits and hyphens (never three in a row), up to 41 characters. Redeploying a name replaces
          its content and keeps its URL.
        </p>
      )}
    </>
  );
}
