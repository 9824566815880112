"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { sessionPerson } from "@/lib/auth/session";
import { getContext } from "@/lib/context";
import { toApiError } from "@/lib/errors";
import { withDb } from "@/lib/db/errors";
import { findTeamFor } from "@/lib/db/teams";
import { setActingChoice } from "@/lib/teams/acting-choice";
import { VANITY_PATTERN } from "@/lib/patterns";

/** What the "Acting as" form shows after a refused switch. */
export interface ActingFormState {
  error: string | null;
}

const choiceSchema = z.union([z.literal(""), z.string().regex(VANITY_PATTERN)]);

// The dashboard's "Acting as" switcher: "" acts as the person, a slug as that team while the
// person is a member of it. The choice is a cookie (lib/teams/acting-choice.ts); the team's
// drops start on the dashboard's first page.
export async function actAsAction(_prev: ActingFormState, form: FormData): Promise<ActingFormState> {
  let person;
  try {
    person = await sessionPerson("write");
  } catch (err) {
    return { error: toApiError(err).message };
  }
  if (!person) redirect("/login");
  const parsed = choiceSchema.safeParse(form.get("acting"));
  if (!parsed.success) return { error: "Choose yourself or one of your teams." };
  if (parsed.data !== "") {
    const ctx = await getContext();
    const found = await withDb(() => findTeamFor(ctx.db, parsed.data, person.account.id));
    if (!found?.role) return { error: "No such team among yours." };
  }
  await setActingChoice(parsed.data === "" ? null : parsed.data);
  redirect("/dashboard");
}
