import type { Node } from "acorn";
import { type AnyNode, isNode, nameOf } from "./ast";
import type { Folder } from "./fold";

// What a script does to the page's forms, as far as its text says: the action it gives a form
// (`form.action = …`, `setAttribute("action", …)`, jQuery's `attr`/`prop`), the password inputs
// it makes (`createElement("input")` then `type = "password"`, or HTML with one inserted by
// `innerHTML`, `insertAdjacentHTML`, `document.write`, jQuery's `html`/`append`) and where it
// puts them. The page (./html) applies these effects to its forms; a script file alone (./rules)
// to the one form it can only assume. HTML a script inserts is scanned as markup (by the
// `fragment` callback, which ./html binds to itself: no import runs back to it).

/** Which of the page's forms a script's reference reaches. */
export type FormRef =
  /** The element with this id: a form, or an element inside one. */
  | { kind: "id"; id: string }
  /** The first element of this class (`querySelector(".login")`): a form, or an element inside one. */
  | { kind: "class"; cls: string }
  /** The page's nth form (`document.forms[0]`, `querySelector("form")`). */
  | { kind: "index"; n: number }
  /** The form of this name (`document.forms.login`). */
  | { kind: "name"; name: string }
  /** No form (`document.body`). */
  | { kind: "none" }
  /** Not known: any form of the page. */
  | { kind: "any" };

export interface ScriptAction {
  ref: FormRef;
  /** The action as the script writes it (folded), resolved by the page. */
  url: string;
  line: number;
  excerpt: string;
}

export interface DomEffects {
  actions: ScriptAction[];
  /** Password inputs a script makes or turns a field into, and the form they land in. */
  passwords: { ref: FormRef }[];
}

/** What scanning inserted markup found: its findings are the caller's; loose passwords are in no form of their own. */
export interface FragmentScan<F> {
  findings: F[];
  loosePasswords: number;
}

/** Scans markup a script inserts (`document` for a whole document: an iframe's srcdoc). */
export type FragmentScanner<F> = (html: string, line: number, document: boolean) => FragmentScan<F>;

/** Markup a script inserts that is scanned, at most, per script (code units). */
const FRAGMENT_CHARS = 1024 * 1024;

interface Created {
  tag: string;
  /** Holds a password input (is one, or one was put in it). */
  password: boolean;
  action: Omit<ScriptAction, "ref"> | null;
  parent: Created | null;
  placed: FormRef[];
}

type Target = { created: Created } | { ref: FormRef };

const ANY: FormRef = { kind: "any" };
const NONE: FormRef = { kind: "none" };
const PLACING = new Set(["appendChild", "append", "prepend", "insertBefore", "replaceChildren"]);
const INSERTING_HTML = new Set(["innerHTML", "outerHTML"]);
const JQUERY = new Set(["$", "jQuery"]);

/** A CSS selector as a form reference, for the shapes kits use; anything else is any form. */
function selectorRef(sel: string | null): FormRef {
  if (sel === null) return ANY;
  const s = sel.trim();
  let m = /^(?:form)?#([\w-]+)$/i.exec(s);
  if (m) return { kind: "id", id: m[1]! };
  m = /^(?:form)?\.([\w-]+)$/i.exec(s);
  if (m) return { kind: "class", cls: m[1]! };
  if (/^form$/i.test(s)) return { kind: "index", n: 0 };
  m = /^form\[name=["']?([\w-]+)["']?\]$/i.exec(s);
  if (m) return { kind: "name", name: m[1]! };
  if (/^(?:body|html|head)$/i.test(s)) return NONE;
  return ANY;
}

export class DomTracker<F> {
  private readonly created = new Map<string, Created>();
  private readonly refs = new Map<string, FormRef>();
  private readonly all: Created[] = [];
  private fragmentChars = FRAGMENT_CHARS;
  readonly effects: DomEffects = { actions: [], passwords: [] };
  readonly findings: F[] = [];
  /** Created forms holding a password, with the action the script gave them. */
  readonly createdForms: { action: Omit<ScriptAction, "ref"> }[] = [];

  constructor(
    private readonly folder: Folder,
    private readonly where: (n: Node) => { line: number; excerpt: string },
    private readonly fragment: FragmentScanner<F> | undefined,
  ) {}

  /** A binding (first pass): `x = document.createElement("input")`, `f = document.forms[0]`. */
  bind(name: string, value: AnyNode): void {
    if (value.type === "CallExpression" && this.folder.property(value.callee as AnyNode) === "createElement") {
      const tag = (this.folder.complete((value.arguments as AnyNode[])[0]) ?? "").trim().toLowerCase();
      const el: Created = { tag, password: false, action: null, parent: null, placed: [] };
      this.created.set(name, el);
      this.all.push(el);
      return;
    }
    const t = this.target(value);
    if ("ref" in t && t.ref.kind !== "any") this.refs.set(name, t.ref);
  }

  /** The element an expression reaches. */
  private target(n: AnyNode): Target {
    const f = this.folder;
    if (n.type === "Identifier") {
      const name = n.name as string;
      const el = this.created.get(name);
      if (el) return { created: el };
      return { ref: this.refs.get(name) ?? ANY };
    }
    if (n.type === "CallExpression") {
      const callee = n.callee as AnyNode;
      const arg = (n.arguments as AnyNode[])[0];
      const name = f.callee(callee);
      if (name === "getElementById") {
        const id = f.complete(arg);
        return { ref: id === null ? ANY : { kind: "id", id } };
      }
      if (name === "querySelector") return { ref: selectorRef(f.complete(arg)) };
      if (callee.type === "Identifier" && JQUERY.has(callee.name as string)) {
        if (isNode(arg) && arg.type === "Identifier") return this.target(arg);
        return { ref: selectorRef(f.complete(arg)) };
      }
      return { ref: ANY };
    }
    if (n.type === "MemberExpression") {
      const prop = f.property(n);
      const obj = n.object as AnyNode;
      if (prop === null) return { ref: ANY };
      if (nameOf(obj) === "document" && (prop === "body" || prop === "head" || prop === "documentElement"))
        return { ref: NONE };
      // document.forms[0], document.forms.login, getElementsByTagName("form")[0]
      const list = obj.type === "MemberExpression" ? f.property(obj) : f.callee(obj.callee);
      const listArg = obj.type === "CallExpression" ? f.complete((obj.arguments as AnyNode[])[0]) : null;
      const forms =
        (obj.type === "MemberExpression" && list === "forms") ||
        (obj.type === "CallExpression" &&
          (list === "getElementsByTagName" || list === "querySelectorAll") &&
          listArg?.trim().toLowerCase() === "form");
      if (forms) return { ref: /^\d+$/.test(prop) ? { kind: "index", n: Number(prop) } : { kind: "name", name: prop } };
      if (obj.type === "CallExpression" && list === "getElementsByName" && listArg !== null && prop === "0")
        return { ref: { kind: "name", name: listArg } };
      if (obj.type === "CallExpression" && list === "getElementsByClassName" && listArg !== null && prop === "0")
        return { ref: { kind: "class", cls: listArg.trim() } };
    }
    return { ref: ANY };
  }

  /** `x.prop = value` */
  assignment(n: AnyNode): void {
    if (n.operator !== "=") return;
    const left = n.left as AnyNode;
    const prop = this.folder.property(left);
    if (prop === null) return;
    this.set(left.object as AnyNode, prop, n.right as AnyNode, n);
  }

  /** `x.setAttribute(…)`, `x.appendChild(…)`, `x.insertAdjacentHTML(…)`, `document.write(…)`, jQuery's. */
  call(n: AnyNode): void {
    const callee = n.callee as AnyNode;
    if (callee.type !== "MemberExpression") return;
    const name = this.folder.property(callee);
    const args = n.arguments as AnyNode[];
    const obj = callee.object as AnyNode;
    if (name === null) return;
    const jquery = obj.type === "CallExpression" && JQUERY.has(nameOf(obj.callee) ?? "");
    if (name === "setAttribute" || (jquery && (name === "attr" || name === "prop"))) {
      const attr = this.folder.complete(args[0]);
      if (attr !== null && args[1]) this.set(obj, attr, args[1], n);
    } else if (PLACING.has(name)) {
      const into = this.target(obj);
      for (const a of name === "insertBefore" ? args.slice(0, 1) : args) {
        const child = a.type === "Identifier" ? this.created.get(a.name as string) : undefined;
        if (child && child !== ("created" in into ? into.created : null)) {
          if ("created" in into) child.parent = into.created;
          else child.placed.push(into.ref);
        } else if (jquery) this.insert(into, a, n, false); // jQuery's append takes markup; the DOM's, text
      }
    } else if (name === "insertAdjacentHTML") this.insert(this.target(obj), args[1], n, false);
    else if ((name === "write" || name === "writeln") && nameOf(obj) === "document")
      for (const a of args) this.insert({ ref: ANY }, a, n, false);
    else if (jquery && (name === "html" || name === "before" || name === "after"))
      this.insert(this.target(obj), args[0], n, false);
  }

  /** A property or attribute given a value. */
  private set(obj: AnyNode, prop: string, value: AnyNode, n: AnyNode): void {
    const key = prop.toLowerCase();
    if (key === "type") {
      if (this.folder.complete(value)?.trim().toLowerCase() !== "password") return;
      const t = this.target(obj);
      // An existing field counts only where the scan can name it: a show/hide toggle on a
      // field reached some other way is no new password field.
      if ("created" in t) t.created.password = true;
      else if (t.ref.kind !== "any") this.effects.passwords.push({ ref: t.ref });
    } else if (key === "action" || key === "formaction") {
      const url = this.folder.fold(value)?.text;
      if (url === undefined) return;
      const t = this.target(obj);
      const action = { url, ...this.where(n) };
      if ("created" in t) t.created.action = action;
      else this.effects.actions.push({ ref: t.ref, ...action });
    } else if (INSERTING_HTML.has(prop)) this.insert(this.target(obj), value, n, false);
    else if (key === "srcdoc") this.insert({ ref: NONE }, value, n, true);
  }

  /** Markup put into an element: scanned; a password input in no form of its own lands in the element's. */
  private insert(into: Target, value: AnyNode | undefined, n: AnyNode, document: boolean): void {
    if (!this.fragment || !value) return;
    const html = this.folder.fold(value)?.text;
    if (html === undefined || !html.includes("<") || html.length > this.fragmentChars) return;
    this.fragmentChars -= html.length;
    const scan = this.fragment(html, this.where(n).line, document);
    this.findings.push(...scan.findings);
    if (scan.loosePasswords === 0 || document) return;
    if ("created" in into) into.created.password = true;
    else this.effects.passwords.push({ ref: into.ref });
  }

  /** The effects, created elements' included: a password in a created element lands where that element (or its top ancestor) was put. */
  finish(): DomEffects {
    for (const el of this.all) {
      if (!el.password) continue;
      // Up to the top created ancestor (bounded: a cycle of parents is a script's mistake).
      let top = el;
      let form: Created | null = el.tag === "form" ? el : null;
      for (let i = 0; i < 32 && top.parent; i++) {
        top = top.parent;
        if (top.tag === "form") form ??= top;
      }
      if (form) {
        if (form.action) this.createdForms.push({ action: form.action });
        continue;
      }
      for (const ref of top.placed.length > 0 ? top.placed : [ANY]) this.effects.passwords.push({ ref });
    }
    return this.effects;
  }
}
