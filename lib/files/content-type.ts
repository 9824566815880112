import mime from "mime";

// Content-Type of a stored file from its extension, through the maintained `mime` table.

const TEXTUAL = /^(text\/|application\/(json|javascript|xml|manifest\+json|ld\+json)|image\/svg\+xml)/;

export function contentTypeFor(path: string): string {
  const type = mime.getType(path) ?? "application/octet-stream";
  return TEXTUAL.test(type) ? `${type}; charset=utf-8` : type;
}
