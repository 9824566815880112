import { parse, tokenizer, tokTypes, type Node, type Options, type Program } from "acorn";
import { excerptOf, type Finding } from "./findings";
import { exfiltrationEndpoint, isOffsite, resolveUrl } from "./urls";

// The scan of one script (a .js file, an inline <script>, an event handler attribute), over
// acorn's syntax tree: what the code calls and with what, not what its text looks like.
// A script that does not parse (cut at the scan's byte budget, or not JavaScript) is read as
// tokens up to the first error, for the rules that a string literal alone decides.

/** A string literal of base64 longer than this (code units) is `obfuscated-script`. */
export const BASE64_LITERAL_CHARS = 100 * 1024;

export interface ScriptInput {
  /** The drop path of the file the script is in. */
  file: string;
  /** The line of the script's first character in that file. */
  firstLine: number;
  /** Lower-case host names that are the drop's own (besides relative URLs). */
  ownHosts: ReadonlySet<string>;
  /** What relative URLs resolve against (the page's <base href>, or the drop's own origin). */
  base?: string;
  /** The page around the script has a password input (an inline script or handler). */
  pagePassword?: boolean;
  /** Read top-level `location` assignments as an instant redirect (index.html, before any content). */
  redirectAtOnce?: boolean;
  /** An event handler attribute: a function body. */
  handler?: boolean;
  /** `<script type="module">` or a .mjs file. */
  module?: boolean;
}

// A loose view of ESTree nodes: the walker reads fields by name.
type AnyNode = Node & Record<string, unknown>;

const isNode = (v: unknown): v is AnyNode =>
  typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string";

function children(node: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  for (const key in node) {
    if (key === "loc" || key === "start" || key === "end" || key === "type") continue;
    const v = node[key];
    if (Array.isArray(v)) {
      for (const item of v) if (isNode(item)) out.push(item);
    } else if (isNode(v)) out.push(v);
  }
  return out;
}

const FUNCTIONS = new Set([
  "FunctionExpression",
  "ArrowFunctionExpression",
  "FunctionDeclaration",
  "ClassExpression",
  "ClassDeclaration",
]);

/**
 * Every node under `root` (root included), depth first, without recursion (minified code nests
 * deep); `shallow` stays out of nested functions and classes (a value's own expression only,
 * which keeps a bundle's nested walks linear enough).
 */
function* walk(root: AnyNode, shallow = false): Generator<AnyNode> {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    yield node;
    if (shallow && node !== root && FUNCTIONS.has(node.type)) continue;
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

function parseScript(text: string, input: ScriptInput): Program | null {
  const options: Options = {
    ecmaVersion: "latest",
    locations: true,
    allowHashBang: true,
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
  };
  const order: ("script" | "module")[] = input.module ? ["module", "script"] : ["script", "module"];
  for (const sourceType of order) {
    try {
      return parse(text, { ...options, sourceType });
    } catch {
      // try the other source type, then give up
    }
  }
  return null;
}

// --- words and values ------------------------------------------------------------------------

const PASSWORD_WORDS = new Set(["password", "passwd", "pwd", "pass", "passcode", "passphrase", "pw"]);

/** Whether a name or string speaks of a password (`userPass`, `pass_word`, `input[type=password]`). */
export function namesPassword(text: string): boolean {
  if (text.length > 200) return false;
  const words = text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/);
  return words.some((w) => PASSWORD_WORDS.has(w));
}

const str = (n: AnyNode | undefined): string | null =>
  n?.type === "Literal" && typeof n.value === "string" ? n.value : null;

const nameOf = (n: unknown): string | null => {
  if (!isNode(n)) return null;
  if (n.type === "Identifier") return n.name as string;
  if (n.type === "Literal" && typeof n.value === "string") return n.value;
  return null;
};

/** The property name of a member expression (`a.b`, `a["b"]`), or null. */
function propertyOf(n: AnyNode): string | null {
  if (n.type !== "MemberExpression") return null;
  return n.computed ? str(n.property as AnyNode) : nameOf(n.property);
}

function isBase64(s: string): boolean {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 61 /* = */) end--;
  if (s.length - end > 2) return false;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    const ok =
      (c >= 65 && c <= 90) ||
      (c >= 97 && c <= 122) ||
      (c >= 48 && c <= 57) ||
      c === 43 ||
      c === 47 ||
      c === 45 ||
      c === 95;
    if (!ok) return false;
  }
  return true;
}

// --- the scan --------------------------------------------------------------------------------

const DECODERS = new Set(["atob", "unescape", "fromCharCode"]);
const EVALUATORS = new Set(["eval", "Function", "setTimeout", "setInterval", "execScript"]);
const HTTP_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
const HTTP_LIBRARIES = new Set(["$", "jQuery", "axios"]);
const LIBRARY_CALLS = new Set(["post", "get", "put", "ajax", "getJSON", "request"]);

class ScriptScan {
  readonly findings: Finding[] = [];
  private readonly constants = new Map<string, AnyNode>();
  /** Names bound to decoded text (atob, unescape, fromCharCode output). */
  private readonly decoded = new Set<string>();
  /** Names bound to a password's value. */
  private readonly secret = new Set<string>();
  private readonly base: string | undefined;

  constructor(
    private readonly text: string,
    private readonly input: ScriptInput,
  ) {
    this.base = input.base;
  }

  private line(n: Node): number {
    return (n.loc?.start.line ?? 1) + this.input.firstLine - 1;
  }

  private add(rule: Finding["rule"], n: Node, host?: string): void {
    this.findings.push({
      rule,
      file: this.input.file,
      line: this.line(n),
      excerpt: excerptOf(this.text.slice(n.start, Math.min(n.end, n.start + 1000))),
      ...(host === undefined ? {} : { host }),
    });
  }

  /** The known start of a string expression: literals, templates, concatenations, constants. */
  private prefix(n: AnyNode | undefined, depth = 0): string | null {
    if (!n || depth > 8) return null;
    if (n.type === "Literal") return typeof n.value === "string" ? n.value : null;
    if (n.type === "TemplateLiteral") {
      const quasis = n.quasis as { value: { cooked?: string | null } }[];
      return quasis[0]?.value.cooked ?? null;
    }
    if (n.type === "BinaryExpression" && n.operator === "+") return this.prefix(n.left as AnyNode, depth + 1);
    if (n.type === "Identifier") return this.prefix(this.constants.get(n.name as string), depth + 1);
    return null;
  }

  private urlOf(n: AnyNode | undefined): URL | null {
    const p = this.prefix(n);
    return p === null ? null : resolveUrl(p, this.base);
  }

  /** The text of a `document`, `window`, `location` reference chain (`window.location`, `top.location`). */
  private isLocation(n: AnyNode): boolean {
    if (n.type === "Identifier") return n.name === "location";
    const prop = propertyOf(n);
    if (prop !== "location") return false;
    const obj = n.object as AnyNode;
    return (
      obj.type === "Identifier" &&
      ["window", "document", "top", "self", "parent", "globalThis"].includes(obj.name as string)
    );
  }

  /** `location`, `location.href`, `window.location.href`, … */
  private isLocationTarget(n: AnyNode): boolean {
    if (this.isLocation(n)) return true;
    return propertyOf(n) === "href" && this.isLocation(n.object as AnyNode);
  }

  private decodes(n: AnyNode, shallow = false): boolean {
    for (const m of walk(n, shallow)) {
      if ((m.type === "CallExpression" || m.type === "NewExpression") && isNode(m.callee)) {
        const callee = m.callee;
        const name = callee.type === "Identifier" ? (callee.name as string) : propertyOf(callee);
        if (name !== null && DECODERS.has(name)) return true;
      }
      if (m.type === "Identifier" && this.decoded.has(m.name as string)) return true;
    }
    return false;
  }

  /** Whether an expression carries a password's value (or a whole form's data on a page with one). */
  private carriesPassword(n: AnyNode): boolean {
    for (const m of walk(n, true)) {
      if (m.type === "Identifier" && this.secret.has(m.name as string)) return true;
      if (m.type === "MemberExpression" && propertyOf(m) === "value") {
        const obj = this.text.slice(
          (m.object as Node).start,
          Math.min((m.object as Node).end, (m.object as Node).start + 200),
        );
        if (namesPassword(obj)) return true;
      }
      if (m.type === "Property" && (namesPassword(nameOf(m.key) ?? "") || namesPassword(nameOf(m.value) ?? "")))
        return true;
      const s = str(m);
      if (s !== null && /[?&]?[a-z_]*pass(?:word|wd)?[a-z_]*=/i.test(s) && s.length < 200) return true;
      if (this.input.pagePassword && m.type === "NewExpression" && nameOf(m.callee) === "FormData") return true;
      if (this.input.pagePassword && m.type === "CallExpression" && propertyOf(m.callee as AnyNode) === "serialize")
        return true;
    }
    return false;
  }

  private bind(name: string, value: AnyNode): void {
    if (value.type === "Literal" || value.type === "TemplateLiteral" || value.type === "BinaryExpression")
      this.constants.set(name, value);
    if (this.decodes(value, true)) this.decoded.add(name);
    if (this.carriesPassword(value)) this.secret.add(name);
  }

  run(program: Program): void {
    const root = program as unknown as AnyNode;
    // Bindings first (twice: a name bound from another bound later in the text).
    for (let pass = 0; pass < 2; pass++) {
      for (const n of walk(root)) {
        if (n.type === "VariableDeclarator" && isNode(n.id) && n.id.type === "Identifier" && isNode(n.init))
          this.bind(n.id.name as string, n.init);
        if (n.type === "AssignmentExpression" && isNode(n.left) && n.left.type === "Identifier" && isNode(n.right))
          this.bind(n.left.name as string, n.right);
      }
    }
    const sent: AnyNode[] = [];
    for (const n of walk(root)) {
      if (n.type === "CallExpression" && propertyOf(n.callee as AnyNode) === "send")
        sent.push(...(n.arguments as AnyNode[]));
    }
    const xhrCarries = sent.some((a) => this.carriesPassword(a));
    for (const n of walk(root)) {
      if (n.type === "Literal" || n.type === "TemplateLiteral") this.literal(n);
      else if (n.type === "CallExpression" || n.type === "NewExpression") this.call(n, xhrCarries);
      else if (n.type === "AssignmentExpression") this.assignment(n);
    }
    if (this.input.redirectAtOnce) this.redirects(program);
  }

  literal(n: AnyNode): void {
    const s = n.type === "Literal" ? str(n) : this.prefix(n);
    if (s === null) return;
    if (s.length > BASE64_LITERAL_CHARS && isBase64(s)) {
      this.findings.push({
        rule: "obfuscated-script",
        file: this.input.file,
        line: this.line(n),
        excerpt: excerptOf(`a ${Math.round(s.length / 1024)} KB base64 string: ${s.slice(0, 40)}`),
      });
      return;
    }
    if (s.length < 2000 && /^\s*(?:https?:)?\/\//i.test(s)) {
      const url = resolveUrl(s, this.base);
      if (url && exfiltrationEndpoint(url)) this.add("exfiltration-endpoint", n);
    }
  }

  private call(n: AnyNode, xhrCarries: boolean): void {
    const callee = n.callee as AnyNode;
    const args = n.arguments as AnyNode[];
    const name = callee.type === "Identifier" ? (callee.name as string) : propertyOf(callee);
    // Evaluating decoded text: eval(atob(…)), new Function(unescape(…)), document.write(String.fromCharCode(…)).
    const writes =
      (name === "write" || name === "writeln") &&
      callee.type === "MemberExpression" &&
      /(?:^|\.)document$/.test(this.text.slice((callee.object as Node).start, (callee.object as Node).end));
    if (name !== null && (EVALUATORS.has(name) || writes)) {
      const evaluated = name === "setTimeout" || name === "setInterval" ? args.slice(0, 1) : args;
      if (evaluated.some((a) => this.decodes(a))) this.add("obfuscated-script", n);
    }
    // Requests: where they go, and whether a password goes with them.
    const target = this.request(name, callee, args, xhrCarries);
    if (!target) return;
    const url = this.urlOf(target.url);
    if (!url || exfiltrationEndpoint(url) || !isOffsite(url, this.input.ownHosts)) return;
    if (target.carries) this.add("credential-form-offsite", n, url.hostname);
  }

  /** The URL and whether the body of a request call carries a password; null for any other call. */
  private request(
    name: string | null,
    callee: AnyNode,
    args: AnyNode[],
    xhrCarries: boolean,
  ): { url: AnyNode | undefined; carries: boolean } | null {
    const rest = () => args.slice(1).some((a) => this.carriesPassword(a));
    if (name === "fetch" || name === "sendBeacon") return { url: args[0], carries: rest() };
    if (name === "open" && args.length >= 2 && HTTP_METHODS.has((str(args[0]) ?? "").toUpperCase()))
      return { url: args[1], carries: xhrCarries };
    const lib = callee.type === "Identifier" ? (callee.name as string) : nameOf(callee.object);
    if (lib === null || !HTTP_LIBRARIES.has(lib)) return null;
    if (callee.type === "MemberExpression" && (name === null || !LIBRARY_CALLS.has(name))) return null;
    const first = args[0];
    if (first?.type === "ObjectExpression") {
      const urlProp = (first.properties as AnyNode[]).find((p) => p.type === "Property" && nameOf(p.key) === "url");
      return { url: urlProp?.value as AnyNode | undefined, carries: this.carriesPassword(first) || rest() };
    }
    return { url: first, carries: rest() };
  }

  // `new Image().src = "https://…?p=" + pass`, `location.href = "https://…?p=" + pass`
  private assignment(n: AnyNode): void {
    const left = n.left as AnyNode;
    const prop = propertyOf(left);
    if (!(prop === "src" || this.isLocationTarget(left))) return;
    const right = n.right as AnyNode;
    const url = this.urlOf(right);
    if (!url || exfiltrationEndpoint(url) || !isOffsite(url, this.input.ownHosts)) return;
    if (this.carriesPassword(right)) this.add("credential-form-offsite", n, url.hostname);
  }

  /** Top-level statements that send the page elsewhere at once: `location = …`, `location.replace(…)`. */
  private redirects(program: Program): void {
    for (const stmt of program.body as unknown as AnyNode[]) {
      if (stmt.type !== "ExpressionStatement") continue;
      const e = stmt.expression as AnyNode;
      let target: AnyNode | undefined;
      if (e.type === "AssignmentExpression" && e.operator === "=" && this.isLocationTarget(e.left as AnyNode))
        target = e.right as AnyNode;
      else if (e.type === "CallExpression") {
        const callee = e.callee as AnyNode;
        const prop = propertyOf(callee);
        if ((prop === "replace" || prop === "assign") && this.isLocation(callee.object as AnyNode))
          target = (e.arguments as AnyNode[])[0];
      }
      if (!target) continue;
      const url = this.urlOf(target);
      if (url && isOffsite(url, this.input.ownHosts)) this.add("instant-offsite-redirect", stmt, url.hostname);
    }
  }
}

/** Rules a string literal decides alone, over the tokens of a script that does not parse. */
function tokenScan(text: string, input: ScriptInput): Finding[] {
  const findings: Finding[] = [];
  const scan = new ScriptScan(text, input);
  try {
    for (const token of tokenizer(text, { ecmaVersion: "latest", locations: true, allowHashBang: true })) {
      const value = (token as { value?: unknown }).value;
      if ((token.type === tokTypes.string || token.type === tokTypes.template) && typeof value === "string") {
        const node = {
          type: "Literal",
          value,
          start: token.start,
          end: token.end,
          loc: token.loc,
        } as unknown as AnyNode;
        scan.literal(node);
      }
    }
  } catch {
    // the rest does not tokenize either: what was read is what is known
  }
  findings.push(...scan.findings);
  return findings;
}

const has = (text: string, words: readonly string[]) => words.some((w) => text.includes(w));

/**
 * Whether a script holds what any rule needs (a plain substring test, far cheaper than a parse):
 * most scripts hold none, and are then not parsed at all.
 */
function worthParsing(text: string, input: ScriptInput): boolean {
  if (text.length > BASE64_LITERAL_CHARS) return true;
  if (has(text, ["telegram.org", "discord", "hooks.slack.com"])) return true;
  if (has(text, ["atob", "unescape", "fromCharCode"])) return true;
  if (input.redirectAtOnce && text.includes("location")) return true;
  const lower = text.toLowerCase();
  return (
    (input.pagePassword === true || has(lower, ["pass", "pwd", "pw"])) &&
    has(text, ["fetch", "sendBeacon", "open", "$", "jQuery", "axios", "src", "location"])
  );
}

/** The findings of one script. */
export function scanScript(text: string, input: ScriptInput): Finding[] {
  if (!worthParsing(text, input)) return [];
  const source = input.handler ? `(function(event){${text}\n})` : text;
  const program = parseScript(source, input);
  if (!program) return input.handler ? [] : tokenScan(text, input);
  const scan = new ScriptScan(source, input);
  scan.run(program);
  return scan.findings;
}
