import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { derivedKey } from "../secret";
import type { Env } from "../env";

// A webhook's signing secret: whsec_ and the base64 of 32 random bytes (the Standard Webhooks
// form the standardwebhooks package reads). Shown once; stored sealed with AES-256-GCM under a
// key derived from NEXTAUTH_SECRET, since every delivery must sign with it (docs/decisions.md).

const PURPOSE = "webhook-secrets";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** v1.<iv>.<tag>.<ciphertext>, base64url; the webhook's id is bound in as associated data. */
export function sealSecret(secret: string, webhookId: string, e?: Env): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", derivedKey(PURPOSE, e), iv);
  cipher.setAAD(Buffer.from(webhookId));
  const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), ct]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** The secret of a sealed value; throws when the server secret changed or the value was altered. */
export function openSecret(sealed: string, webhookId: string, e?: Env): string {
  const [v, iv, tag, ct] = sealed.split(".");
  if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("unknown sealed-secret format");
  const decipher = createDecipheriv("aes-256-gcm", derivedKey(PURPOSE, e), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(webhookId));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
}

/** An answer that may show a webhook's signing secret once: its structured fields and its text. */
export interface ShownOnce {
  structured: Record<string, unknown>;
  text: string;
}

/** Where a sealed secret stood in the stored text. */
const SEALED_MARK = "\u0000sealed\u0000";

/**
 * An answer as stored for an idempotent replay (add_webhook with idempotency_key): the secret
 * shown once, in `field`, sealed under its record's id as the webhooks table keeps it, and out of
 * the text. Without such a field the answer is stored as it is.
 */
export function sealShownSecret(out: ShownOnce, field: string | undefined, e?: Env): ShownOnce {
  if (field === undefined) return out;
  const secret = out.structured[field];
  const id = out.structured.id;
  if (typeof secret !== "string" || typeof id !== "string") return out;
  return {
    structured: { ...out.structured, [field]: sealSecret(secret, id, e) },
    text: out.text.replaceAll(secret, SEALED_MARK),
  };
}

/** The stored answer with its secret opened again, for the replay. */
export function openShownSecret(out: ShownOnce, field: string | undefined, e?: Env): ShownOnce {
  if (field === undefined) return out;
  const sealed = out.structured[field];
  const id = out.structured.id;
  if (typeof sealed !== "string" || typeof id !== "string") return out;
  const secret = openSecret(sealed, id, e);
  return { structured: { ...out.structured, [field]: secret }, text: out.text.replaceAll(SEALED_MARK, secret) };
}
