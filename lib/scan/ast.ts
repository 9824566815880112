import type { Node } from "acorn";

// A loose view of acorn's ESTree nodes, shared by the script scan's parts (./script, ./fold,
// ./dom): the walker reads fields by name, without recursion.

export type AnyNode = Node & Record<string, unknown>;

export const isNode = (v: unknown): v is AnyNode =>
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
export function* walk(root: AnyNode, shallow = false): Generator<AnyNode> {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    yield node;
    if (shallow && node !== root && FUNCTIONS.has(node.type)) continue;
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

/** A string literal's value, or null. */
export const str = (n: AnyNode | undefined): string | null =>
  n?.type === "Literal" && typeof n.value === "string" ? n.value : null;

/** An identifier's name or a string literal's value (a property key as written), or null. */
export const nameOf = (n: unknown): string | null => {
  if (!isNode(n)) return null;
  if (n.type === "Identifier") return n.name as string;
  if (n.type === "Literal" && typeof n.value === "string") return n.value;
  return null;
};
