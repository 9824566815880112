"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field, InlineForm } from "../../_components/ui";
import { createTeamAction } from "./actions";
import { Status } from "../status";
import { useAction } from "../use-action";

/** Creates a team (Team plan), then opens its page. */
export function CreateTeam() {
  const router = useRouter();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const { pending, failure, said, submit } = useAction();
  return (
    <InlineForm
      onSubmit={submit(() => createTeamAction(name, slug), {
        said: (d) => `Team ${d.slug} created.`,
        onOk: (d) => router.push(`/dashboard/teams/${d.slug}`),
        refresh: false,
      })}
      submit="Create team"
      pending={pending}
      after={<Status text={said} failure={failure} testId="create-team-said" />}
    >
      <Field
        id="team-name"
        label="Name"
        required
        value={name}
        maxLength={100}
        onChange={(e) => setName(e.target.value)}
      />
      <Field
        id="team-slug"
        kind="code"
        label="Slug"
        required
        value={slug}
        minLength={3}
        maxLength={20}
        onChange={(e) => setSlug(e.target.value.toLowerCase())}
        hint="3 to 20 lowercase letters, digits or single hyphens."
      />
    </InlineForm>
  );
}
