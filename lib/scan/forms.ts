import type { DomEffects, FormRef } from "./dom";
import type { Finding } from "./findings";
import { exfiltrationEndpoint, isOffsite, resolveUrl } from "./urls";

// A page's forms as the rules judge them: where each posts (its action, its submit buttons'
// formaction, and what scripts set), and whether it holds a password input (in its markup, or
// put there by a script). ./html gathers them from markup; a script file alone (./rules) has
// one form it can only assume, which every reference of the script reaches.

export interface Located {
  line: number;
  excerpt: string;
}

export interface FormInfo extends Located {
  action: string | null;
  id: string | null;
  name: string | null;
  password: boolean;
  /** formaction of its submit buttons, and actions scripts give it (`script`: the script reports a collector itself). */
  overrides: (Located & { action: string; script?: boolean })[];
}

export interface PageForms {
  /** In document order. */
  forms: FormInfo[];
  /** Elements by id (the first of each): the form they are or are in; null for none. */
  ids: ReadonlyMap<string, FormInfo | null>;
  /** Elements by class (the first of each), likewise. */
  classes: ReadonlyMap<string, FormInfo | null>;
}

/** The form a script's own forms stand in for when there is no markup (a .js file). */
export function assumedForm(): FormInfo {
  return { line: 0, excerpt: "", action: null, id: null, name: null, password: false, overrides: [] };
}

/** The forms a script's reference reaches; one the markup does not settle reaches them all. */
function reached(page: PageForms, ref: FormRef): FormInfo[] {
  switch (ref.kind) {
    case "none":
      return [];
    case "id":
    case "class": {
      const at = ref.kind === "id" ? page.ids.get(ref.id) : page.classes.get(ref.cls);
      if (at === undefined) return page.forms;
      return at === null ? [] : [at];
    }
    case "index": {
      const f = page.forms[ref.n];
      return f ? [f] : page.forms;
    }
    case "name": {
      const named = page.forms.filter((f) => f.name === ref.name);
      return named.length > 0 ? named : page.forms;
    }
    case "any":
      return page.forms;
  }
}

/** Applies what scripts do to the page's forms; true when a script made a password input. */
export function applyEffects(page: PageForms, effects: readonly DomEffects[]): boolean {
  let password = false;
  for (const e of effects) {
    for (const p of e.passwords) {
      password = true;
      for (const f of reached(page, p.ref)) f.password = true;
    }
    for (const a of e.actions)
      for (const f of reached(page, a.ref))
        f.overrides.push({ line: a.line, excerpt: a.excerpt, action: a.url, script: true });
  }
  return password;
}

/** The findings of forms: a collector as their action, or a password sent to another host. */
export function judgeForms(
  forms: readonly FormInfo[],
  file: string,
  base: string,
  own: ReadonlySet<string>,
): Finding[] {
  const findings: Finding[] = [];
  // A script's action that reaches several forms is one finding.
  const seen = new Set<string>();
  const push = (f: Finding) => {
    const key = `${f.rule}:${f.line}`;
    if (!seen.has(key)) findings.push(f);
    seen.add(key);
  };
  for (const form of forms) {
    const actions = [
      ...(form.action === null ? [] : [{ line: form.line, excerpt: form.excerpt, action: form.action }]),
      ...form.overrides,
    ];
    for (const a of actions) {
      const url = resolveUrl(a.action, base);
      if (!url) continue;
      const at = { line: a.line, excerpt: a.excerpt };
      if (exfiltrationEndpoint(url)) {
        if (!("script" in a)) push({ rule: "exfiltration-endpoint", file, ...at });
      } else if (form.password && isOffsite(url, own))
        push({ rule: "credential-form-offsite", file, ...at, host: url.host });
    }
  }
  return findings;
}
