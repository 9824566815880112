// Linear-time checks on raw request text that JSON.parse and regular expressions cannot make
// safely: base64 validity (a grouped regex overflows the engine's stack on strings of a few MB)
// and duplicate object keys (JSON.parse keeps the last one silently).

const B64 = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") B64[c.charCodeAt(0)] = 1;

/** Standard base64 (RFC 4648 alphabet) with = padding, no line breaks; one pass, no regex. */
export function isBase64(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  let end = n;
  if (n > 0 && s.charCodeAt(n - 1) === 61) end--;
  if (end < n && end > 0 && s.charCodeAt(end - 1) === 61) end--;
  // At most two padding characters, and never a whole group of them.
  if (n - end > 0 && end % 4 < 2) return false;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || B64[c] !== 1) return false;
  }
  return true;
}

/**
 * Scans JSON text that JSON.parse accepted and returns the first object key that occurs twice in
 * one object (with the path to that object), or null. Keys are compared after unescaping, so
 * "a\u0062" and "ab" are the same key.
 */
export function findDuplicateKey(text: string): { key: string; path: string[] } | null {
  type Frame = { keys: Set<string> | null; expectKey: boolean; lastKey: string | null };
  const stack: Frame[] = [];
  const path: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return null; // not JSON JSON.parse accepted; nothing to say
        let backslashes = 0;
        for (let k = q - 1; k > i && text.charCodeAt(k) === 92; k--) backslashes++;
        j = q + 1;
        if (backslashes % 2 === 0) break;
      }
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j)) as string;
        if (top.keys.has(key)) return { key, path: [...path] };
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = j - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      const parent = stack[stack.length - 1];
      if (parent) path.push(parent.keys ? (parent.lastKey ?? "") : "[]");
      stack.push({ keys: c === 123 ? new Set() : null, expectKey: c === 123, lastKey: null });
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
      if (stack.length > 0) path.pop();
    } else if (c === 44 /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
    }
  }
  return null;
}
