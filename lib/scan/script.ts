import { parse, tokenizer, tokTypes, type Node, type Options, type Program } from "acorn";
import { type AnyNode, isNode, nameOf, str, walk } from "./ast";
import { DomTracker, type DomEffects, type FragmentScanner } from "./dom";
import { excerptOf, type Finding } from "./findings";
import { Folder, innerChain, isChain } from "./fold";
import { BASE64_LITERAL_CHARS, worthParsing } from "./signs";
import { exfiltrationEndpoint, isOffsite, resolveUrl, type ScanUrl } from "./urls";

// The scan of one script (a .js file, an inline <script>, an event handler attribute), over
// acorn's syntax tree: what the code calls and with what, not what its text looks like.
// Constant string expressions are folded first (./fold); what the script does to the page's
// forms is gathered for the page (./dom). A script that does not parse (cut at the scan's byte
// budget, or not JavaScript) is read as tokens up to the first error, for the rules that a
// string alone decides.

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
  /** The page around the script has forms (whose action it may set). */
  pageForms?: boolean;
  /** Read top-level `location` assignments as an instant redirect (index.html, before any content). */
  redirectAtOnce?: boolean;
  /** An event handler attribute: a function body. */
  handler?: boolean;
  /** `<script type="module">` or a .mjs file. */
  module?: boolean;
  /** Scans markup the script inserts (absent: not scanned, as past the nesting bound). */
  fragment?: FragmentScanner<Finding>;
  /** How many evaluations this code is inside (code a script hands to eval is scanned too). */
  depth?: number;
}

/** Code handed to eval is scanned this many levels deep, and at most this much of it a script. */
const MAX_EVALUATED = 3;
const EVALUATED_CHARS = 1024 * 1024;

export interface ScriptResult {
  findings: Finding[];
  /** What the script does to the page's forms. */
  dom: DomEffects;
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
/** Names an alias is followed to. */
const WATCHED = new Set([...DECODERS, ...EVALUATORS]);
const HTTP_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
const HTTP_LIBRARIES = new Set(["$", "jQuery", "axios"]);
const LIBRARY_CALLS = new Set(["post", "get", "put", "ajax", "getJSON", "request"]);

class ScriptScan {
  readonly findings: Finding[] = [];
  private readonly folder = new Folder(WATCHED);
  private readonly dom: DomTracker<Finding>;
  /** Names bound to decoded text (atob, unescape, fromCharCode output). */
  private readonly decoded = new Set<string>();
  /** Names bound to a password's value. */
  private readonly secret = new Set<string>();
  /** Findings by rule and line: one each, the first (outermost) wins. */
  private readonly found = new Set<string>();
  /** Names bound to `atob` of a constant: code, once decoded. */
  private readonly encoded = new Map<string, AnyNode>();
  private evaluatedChars = EVALUATED_CHARS;
  private readonly base: string | undefined;

  constructor(
    private readonly text: string,
    private readonly input: ScriptInput,
  ) {
    this.base = input.base;
    this.dom = new DomTracker(this.folder, (n) => ({ line: this.line(n), excerpt: this.excerpt(n) }), input.fragment);
  }

  private line(n: Node): number {
    return (n.loc?.start.line ?? 1) + this.input.firstLine - 1;
  }

  private excerpt(n: Node): string {
    return excerptOf(this.text.slice(n.start, Math.min(n.end, n.start + 1000)));
  }

  private add(rule: Finding["rule"], n: Node, host?: string): void {
    this.addFinding({
      rule,
      file: this.input.file,
      line: this.line(n),
      excerpt: this.excerpt(n),
      ...(host === undefined ? {} : { host }),
    });
  }

  private addFinding(f: Finding): void {
    const key = `${f.rule}:${f.line}`;
    if (this.found.has(key)) return;
    this.found.add(key);
    this.findings.push(f);
  }

  /** The known start of a string expression (folded). */
  private prefix(n: AnyNode | undefined): string | null {
    return this.folder.fold(n)?.text ?? null;
  }

  private urlOf(n: AnyNode | undefined): ScanUrl | null {
    const p = this.prefix(n);
    return p === null ? null : resolveUrl(p, this.base);
  }

  private propertyOf(n: AnyNode): string | null {
    return this.folder.property(n);
  }

  /** The text of a `document`, `window`, `location` reference chain (`window.location`, `top.location`). */
  private isLocation(n: AnyNode): boolean {
    if (n.type === "Identifier") return n.name === "location";
    const prop = this.propertyOf(n);
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
    return this.propertyOf(n) === "href" && this.isLocation(n.object as AnyNode);
  }

  private decodes(n: AnyNode, shallow = false): boolean {
    for (const m of walk(n, shallow)) {
      if ((m.type === "CallExpression" || m.type === "NewExpression") && isNode(m.callee)) {
        const name = this.folder.callee(m.callee);
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
      if (m.type === "MemberExpression" && this.propertyOf(m) === "value") {
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
      if (
        this.input.pagePassword &&
        m.type === "CallExpression" &&
        this.propertyOf(m.callee as AnyNode) === "serialize"
      )
        return true;
    }
    return false;
  }

  private bind(name: string, value: AnyNode): void {
    this.folder.bind(name, value);
    if (value.type === "CallExpression" && this.folder.callee(value.callee) === "atob") this.encoded.set(name, value);
    this.dom.bind(name, value);
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
      this.folder.settle();
    }
    const sent: AnyNode[] = [];
    for (const n of walk(root)) {
      if (n.type === "CallExpression" && this.propertyOf(n.callee as AnyNode) === "send")
        sent.push(...(n.arguments as AnyNode[]));
    }
    const xhrCarries = sent.some((a) => this.carriesPassword(a));
    // A chain of `+` is matched once, at its root (walked first: the walk is pre-order).
    const inner = new Set<AnyNode>();
    for (const n of walk(root)) {
      if (n.type === "Literal" || n.type === "TemplateLiteral") this.literal(n);
      else if (isChain(n)) {
        if (inner.has(n)) continue;
        innerChain(n, inner);
        this.literal(n);
      } else if (n.type === "CallExpression" || n.type === "NewExpression") {
        this.call(n, xhrCarries);
        if (n.type === "CallExpression") this.dom.call(n);
      } else if (n.type === "AssignmentExpression") {
        this.assignment(n);
        this.dom.assignment(n);
      }
    }
    if (this.input.redirectAtOnce) this.redirects(program);
    this.findings.push(...this.dom.findings);
    this.dom.finish();
    // A form the script makes whole: its password goes where the script sends the form.
    for (const { action } of this.dom.createdForms) {
      const url = resolveUrl(action.url, this.base);
      if (url && !exfiltrationEndpoint(url) && isOffsite(url, this.input.ownHosts))
        this.addFinding({ rule: "credential-form-offsite", file: this.input.file, ...action, host: url.host });
    }
  }

  get effects(): DomEffects {
    return this.dom.effects;
  }

  literal(n: AnyNode): void {
    const s = n.type === "Literal" ? str(n) : this.prefix(n);
    if (s === null) return;
    if (n.type === "Literal" && s.length > BASE64_LITERAL_CHARS && isBase64(s)) {
      this.findings.push({
        rule: "obfuscated-script",
        file: this.input.file,
        line: this.line(n),
        excerpt: excerptOf(`a ${Math.round(s.length / 1024)} KB base64 string: ${s.slice(0, 40)}`),
      });
      return;
    }
    // Only the start names the host and path (a long string is not parsed whole).
    const head = s.length < 2000 ? s : s.slice(0, 2000);
    if (/^\s*(?:https?:)?\/\//i.test(head)) {
      const url = resolveUrl(head, this.base);
      if (url && exfiltrationEndpoint(url)) this.add("exfiltration-endpoint", n);
    }
  }

  private call(n: AnyNode, xhrCarries: boolean): void {
    const callee = n.callee as AnyNode;
    const args = n.arguments as AnyNode[];
    let name = this.folder.callee(callee);
    let evaluated = args;
    // eval.call(this, code), Function.apply(null, [code])
    if ((name === "call" || name === "apply") && callee.type === "MemberExpression") {
      const through = this.folder.callee(callee.object);
      if (through !== null && EVALUATORS.has(through)) {
        name = through;
        evaluated = args.slice(1);
      }
    }
    // Evaluating decoded text: eval(atob(…)), new Function(unescape(…)), document.write(String.fromCharCode(…)).
    const writes =
      (name === "write" || name === "writeln") &&
      callee.type === "MemberExpression" &&
      /(?:^|\.)document$/.test(this.text.slice((callee.object as Node).start, (callee.object as Node).end));
    if (name !== null && (EVALUATORS.has(name) || writes)) {
      if (name === "setTimeout" || name === "setInterval") evaluated = evaluated.slice(0, 1);
      if (evaluated.some((a) => this.decodes(a))) this.add("obfuscated-script", n);
      // What the browser then runs: a constant's text (Function's is its last argument).
      if (!writes) this.evaluate(name === "Function" ? evaluated.slice(-1) : evaluated.slice(0, 1), n);
    }
    // Requests: where they go, and whether a password goes with them.
    const target = this.request(name, callee, args, xhrCarries);
    if (!target) return;
    const url = this.urlOf(target.url);
    if (!url || exfiltrationEndpoint(url) || !isOffsite(url, this.input.ownHosts)) return;
    if (target.carries) this.add("credential-form-offsite", n, url.host);
  }

  /** The code an argument of eval is, when constant: folded text, or `atob` of a constant decoded. */
  private codeOf(a: AnyNode): string | null {
    const folded = this.folder.complete(a);
    if (folded !== null) return folded;
    const encoded = a.type === "Identifier" ? this.encoded.get(a.name as string) : a;
    if (encoded?.type !== "CallExpression" || this.folder.callee(encoded.callee) !== "atob") return null;
    const b64 = this.folder.complete((encoded.arguments as AnyNode[])[0]);
    try {
      return b64 === null ? null : atob(b64);
    } catch {
      return null;
    }
  }

  /** Scans the code a call evaluates as a script of its own; its findings are on the call's line. */
  private evaluate(args: AnyNode[], n: AnyNode): void {
    const depth = this.input.depth ?? 0;
    if (depth >= MAX_EVALUATED) return;
    for (const a of args) {
      const code = this.codeOf(a);
      if (code === null || code.length > this.evaluatedChars) continue;
      this.evaluatedChars -= code.length;
      const inner = scanScript(code, { ...this.input, depth: depth + 1, redirectAtOnce: false, handler: false });
      for (const f of inner.findings) this.addFinding({ ...f, line: this.line(n) });
      this.dom.effects.actions.push(...inner.dom.actions.map((x) => ({ ...x, line: this.line(n) })));
      this.dom.effects.passwords.push(...inner.dom.passwords);
    }
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
    if (name === "open" && args.length >= 2 && HTTP_METHODS.has((this.folder.complete(args[0]) ?? "").toUpperCase()))
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
    const prop = this.propertyOf(left);
    if (!(prop === "src" || this.isLocationTarget(left))) return;
    const right = n.right as AnyNode;
    const url = this.urlOf(right);
    if (!url || exfiltrationEndpoint(url) || !isOffsite(url, this.input.ownHosts)) return;
    if (this.carriesPassword(right)) this.add("credential-form-offsite", n, url.host);
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
        const prop = this.propertyOf(callee);
        if ((prop === "replace" || prop === "assign") && this.isLocation(callee.object as AnyNode))
          target = (e.arguments as AnyNode[])[0];
      }
      if (!target) continue;
      const url = this.urlOf(target);
      if (url && isOffsite(url, this.input.ownHosts)) this.add("instant-offsite-redirect", stmt, url.host);
    }
  }
}

/**
 * Rules a string decides alone, over the tokens of a script that does not parse: string and
 * template tokens, those joined by `+` folded into one.
 */
function tokenScan(text: string, input: ScriptInput): Finding[] {
  const scan = new ScriptScan(text, input);
  let run: { value: string; start: number; loc: unknown } | null = null;
  let joined = false;
  const flush = (end: number) => {
    if (run)
      scan.literal({
        type: "TemplateLiteral",
        quasis: [{ value: { cooked: run.value } }],
        expressions: [],
        start: run.start,
        end,
        loc: run.loc,
      } as unknown as AnyNode);
    run = null;
  };
  let last = 0;
  try {
    for (const token of tokenizer(text, { ecmaVersion: "latest", locations: true, allowHashBang: true })) {
      const value = (token as { value?: unknown }).value;
      const isString =
        (token.type === tokTypes.string || token.type === tokTypes.template) && typeof value === "string";
      if (isString) {
        // A base64 blob is a literal of its own.
        if (value.length > BASE64_LITERAL_CHARS)
          scan.literal({
            type: "Literal",
            value,
            start: token.start,
            end: token.end,
            loc: token.loc,
          });
        if (run && joined && run.value.length < 4096) run.value += value;
        else {
          flush(last);
          run = { value, start: token.start, loc: token.loc };
        }
        joined = false;
      } else if (token.type === tokTypes.plusMin && value === "+" && run) joined = true;
      else if (token.type !== tokTypes.backQuote && token.type !== tokTypes.template) {
        flush(last);
        joined = false;
      }
      last = token.end;
    }
  } catch {
    // the rest does not tokenize either: what was read is what is known
  }
  flush(last);
  return scan.findings;
}

const NO_EFFECTS: DomEffects = { actions: [], passwords: [] };

/** The findings of one script, and what it does to the page's forms. */
export function scanScript(text: string, input: ScriptInput): ScriptResult {
  if (!worthParsing(text, input)) return { findings: [], dom: NO_EFFECTS };
  const source = input.handler ? `(function(event){${text}\n})` : text;
  const program = parseScript(source, input);
  if (!program) return { findings: input.handler ? [] : tokenScan(text, input), dom: NO_EFFECTS };
  const scan = new ScriptScan(source, input);
  scan.run(program);
  return { findings: scan.findings, dom: scan.effects };
}
