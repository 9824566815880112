import { type AnyNode, isNode, nameOf } from "./ast";

// Constant string expressions as a script's reader sees them: literals joined with `+`,
// template literals, and names bound to either, folded into the text they make before any
// rule matches it ("https://api.tele" + "gram.org/bot" is the Telegram bot API). Also the names
// a call reaches: a computed member whose name folds (`window["ev" + "al"]`), a variable
// assigned from a function the rules watch (`var e = eval`). Bounded: depth, length and a
// step budget per script, so a hostile script costs no more than its size.

/** What an expression is known to start with, and whether that is all of it. */
export interface Folded {
  text: string;
  complete: boolean;
}

/** The longest folded text kept (code units); longer text is cut and incomplete. */
export const FOLD_CHARS = 64 * 1024;
/** How many names and nested expressions a fold follows. */
const FOLD_DEPTH = 8;
/** Operands folded per script, at most. */
const FOLD_STEPS = 200_000;

const PLUS = (n: AnyNode) => n.type === "BinaryExpression" && n.operator === "+";

export class Folder {
  /** Names bound to a constant string expression (the last binding in the text wins). */
  readonly constants = new Map<string, AnyNode>();
  /** Names bound to a watched function (`var e = eval` → e: eval). */
  readonly aliases = new Map<string, string>();
  private readonly memo = new Map<string, Folded | null>();
  private steps = FOLD_STEPS;

  constructor(private readonly watched: ReadonlySet<string>) {}

  /** Forget folds of names (after bindings change). */
  settle(): void {
    this.memo.clear();
  }

  /** Binds a name to what a declaration or assignment gives it. */
  bind(name: string, value: AnyNode): void {
    if (value.type === "Literal" || value.type === "TemplateLiteral" || PLUS(value)) this.constants.set(name, value);
    else if (value.type === "Identifier" || value.type === "MemberExpression" || value.type === "SequenceExpression") {
      const target = this.callee(value);
      if (target !== null && this.watched.has(target)) this.aliases.set(name, target);
    }
  }

  /** The known start of a string expression, or null when not even its start is known. */
  fold(n: AnyNode | undefined, depth = 0): Folded | null {
    if (!n || depth > FOLD_DEPTH || this.steps <= 0) return null;
    this.steps--;
    if (n.type === "Literal") return typeof n.value === "string" ? cap(n.value, true) : null;
    if (n.type === "TemplateLiteral") return this.template(n, depth);
    if (PLUS(n)) return this.chain(n, depth);
    if (n.type === "Identifier") {
      const name = n.name as string;
      if (this.memo.has(name)) return this.memo.get(name)!;
      this.memo.set(name, null); // a name bound to itself folds to nothing
      const folded = this.fold(this.constants.get(name), depth + 1);
      this.memo.set(name, folded);
      return folded;
    }
    return null;
  }

  /** The whole text of a constant string expression, or null. */
  complete(n: AnyNode | undefined): string | null {
    const f = this.fold(n);
    return f?.complete ? f.text : null;
  }

  private template(n: AnyNode, depth: number): Folded | null {
    const quasis = n.quasis as { value: { cooked?: string | null } }[];
    const expressions = n.expressions as AnyNode[];
    let text = quasis[0]?.value.cooked;
    if (typeof text !== "string") return null;
    for (let i = 0; i < expressions.length; i++) {
      const part = this.fold(expressions[i], depth + 1);
      if (part === null) return cap(text, false);
      text += part.text;
      if (!part.complete || text.length > FOLD_CHARS) return cap(text, false);
      const next = quasis[i + 1]?.value.cooked;
      if (typeof next !== "string") return cap(text, false);
      text += next;
    }
    return cap(text, true);
  }

  /** `a + b + c`: the left spine walked iteratively (minified code chains thousands of terms). */
  private chain(n: AnyNode, depth: number): Folded | null {
    const parts: AnyNode[] = [];
    let cur = n;
    while (PLUS(cur)) {
      parts.push(cur.right as AnyNode);
      cur = cur.left as AnyNode;
    }
    parts.push(cur);
    let text: string | null = null;
    for (let i = parts.length - 1; i >= 0; i--) {
      const p = parts[i]!;
      this.steps--;
      // A number joins a string already begun (`1 + 2 + "a"` is "3a": not folded).
      const part: Folded | null =
        text !== null && p.type === "Literal" && typeof p.value === "number"
          ? { text: String(p.value), complete: true }
          : this.fold(p, depth + 1);
      if (part === null) return text === null ? null : cap(text, false);
      text = (text ?? "") + part.text;
      if (!part.complete || text.length > FOLD_CHARS || this.steps <= 0) return cap(text, false);
    }
    return text === null ? null : cap(text, true);
  }

  /** A member expression's property name (`a.b`, `a["b"]`, `a["ev" + "al"]`, `a[0]`), or null. */
  property(n: AnyNode): string | null {
    if (n.type !== "MemberExpression") return null;
    const prop = n.property as AnyNode;
    if (!n.computed) return nameOf(prop);
    if (prop.type === "Literal" && typeof prop.value === "number") return String(prop.value);
    return this.complete(prop);
  }

  /**
   * The name a call reaches: an identifier (through aliases), a member's property, the last
   * of a sequence (`(0, eval)(…)`); null for anything else.
   */
  callee(n: unknown): string | null {
    if (!isNode(n)) return null;
    if (n.type === "Identifier") return this.aliases.get(n.name as string) ?? (n.name as string);
    if (n.type === "MemberExpression") return this.property(n);
    if (n.type === "SequenceExpression") return this.callee((n.expressions as AnyNode[]).at(-1));
    return null;
  }
}

/** `PLUS` nodes on the left spine below a chain's root: a chain is matched once, at its root. */
export function innerChain(root: AnyNode, into: Set<AnyNode>): void {
  let cur = root.left as AnyNode;
  while (PLUS(cur)) {
    into.add(cur);
    cur = cur.left as AnyNode;
  }
}

export const isChain = PLUS;

const cap = (text: string, complete: boolean): Folded =>
  text.length > FOLD_CHARS ? { text: text.slice(0, FOLD_CHARS), complete: false } : { text, complete };
