"use client";

import { useState } from "react";
import { CopyButton } from "../_components/CodeBlock";
import { dateTime, relative } from "../_components/format";
import { Button } from "../_components/ui";
import { deleteAliasAction, setAliasAction } from "./alias-actions";
import { ConfirmDialog } from "./confirm-dialog";
import { Status } from "./status";
import { Table } from "./table";
import { useAction } from "./use-action";

interface AliasView {
  name: string;
  version: number;
  url: string | null;
  updated_at: string;
}

/**
 * A drop's aliases (`<slug>---<name>` serves the version one points at): each with its version,
 * its address (Open, Copy) and when it last moved, and Delete behind a confirmation; a form
 * points a name at a retained version, creating the alias or moving it. `blocked` says why the
 * session may only look (a viewer's role, a disabled drop); the form and buttons are then left
 * out and the reason shown.
 */
export function AliasesPanel({
  slug,
  aliases,
  versions,
  live,
  max,
  now,
  blocked,
}: {
  slug: string;
  aliases: AliasView[];
  versions: number[];
  live: number;
  max: number;
  now: number;
  blocked: string | null;
}) {
  const [name, setName] = useState("");
  // The live version until the person picks one (live moves when a version is made live).
  const [picked, setPicked] = useState<string | null>(null);
  const version = picked ?? String(live);
  const [target, setTarget] = useState<AliasView | null>(null);
  const { pending, failure, said, run, submit } = useAction();
  const point = submit(() => setAliasAction(slug, name.trim(), Number(version)), {
    said: (a) => `${a.name} now points at version ${a.version}.`,
  });
  return (
    <section className="card" aria-labelledby="aliases-title">
      <h2 id="aliases-title">Aliases</h2>
      <p className="muted">
        A name that points at one version and moves when you point it again, for a staging or review address that stays
        the same.{" "}
        <span data-testid="aliases-cap">
          This drop has {aliases.length} of the {max} {max === 1 ? "alias" : "aliases"} its plan allows.
        </span>
      </p>
      {blocked && (
        <p className="muted" data-testid="aliases-blocked">
          {blocked}
        </p>
      )}
      {aliases.length === 0 ? (
        <p data-testid="aliases-empty">No aliases yet.</p>
      ) : (
        <Table
          className="files-table"
          testId="drop-aliases"
          columns={["Name", "Version", "Address", "Updated"]}
          hidden={blocked ? undefined : "Action"}
        >
          {aliases.map((a) => (
            <tr key={a.name} data-testid={`alias-${a.name}`}>
              <td>{a.name}</td>
              <td className="num">{a.version}</td>
              <td>
                {a.url ? (
                  <span className="row" style={{ justifyContent: "flex-start" }}>
                    <a
                      href={a.url}
                      target="_blank"
                      rel="noopener"
                      aria-label={`Open alias ${a.name} in a new tab`}
                      data-testid={`alias-${a.name}-open`}
                    >
                      Open
                    </a>
                    <CopyButton text={a.url} label={`Copy the address of alias ${a.name}`} />
                  </span>
                ) : (
                  <span className="muted">No own address: the name is too long for one.</span>
                )}
              </td>
              <td>
                <time dateTime={a.updated_at} title={dateTime(a.updated_at)}>
                  {relative(a.updated_at, now)}
                </time>
              </td>
              {!blocked && (
                <td>
                  <button
                    type="button"
                    className="button small secondary"
                    onClick={() => setTarget(a)}
                    aria-label={`Delete alias ${a.name}`}
                  >
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      {!blocked && (
        <form onSubmit={point} className="domain-add" data-testid="alias-form">
          <label htmlFor="alias-name">Alias name</label>
          <input
            id="alias-name"
            name="name"
            type="text"
            autoComplete="off"
            spellCheck={false}
            placeholder="staging"
            maxLength={16}
            pattern="[a-z0-9](?:[a-z0-9\-]{0,14}[a-z0-9])?"
            aria-describedby="alias-name-rule"
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <p className="muted" id="alias-name-rule">
            1 to 16 lowercase letters, digits and hyphens. A name that exists moves to the version chosen.
          </p>
          <label htmlFor="alias-version">Version</label>
          <select id="alias-version" value={version} onChange={(e) => setPicked(e.target.value)}>
            {versions.map((v) => (
              <option key={v} value={String(v)}>
                Version {v}
                {v === live ? " (live)" : ""}
              </option>
            ))}
          </select>
          <Button type="submit" disabled={pending}>
            {pending ? "Working…" : "Point alias"}
          </Button>
        </form>
      )}
      <Status shown text={said} failure={failure} testId="aliases-status" />
      <ConfirmDialog
        open={target !== null}
        title={`Delete alias ${target?.name ?? ""}?`}
        body={`Its address stops serving at once (a visitor gets "No preview named ${target?.name ?? ""}"). Version ${target?.version ?? ""} itself stays.`}
        confirm="Delete alias"
        testId="alias-delete-dialog"
        busy={pending}
        onCancel={() => setTarget(null)}
        onConfirm={() => {
          if (!target) return;
          const gone = target.name;
          run(() => deleteAliasAction(slug, gone), {
            said: () => `Alias ${gone} deleted.`,
            onDone: () => setTarget(null),
          });
        }}
      />
    </section>
  );
}
