import nodemailer, { type Transporter } from "nodemailer";
import type { Env } from "../env";

// Outgoing mail: one SMTP transport (nodemailer) per SMTP_URL, made on first use. The service
// sends one kind of mail, the one-time sign-in links of emails-only drops (lib/serve/emails.ts),
// always off the request path: a slow or failing SMTP server never delays or fails an answer.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The variables mail needs that are not set (empty when mail is configured). */
export function missingMailVariables(e: Pick<Env, "SMTP_URL" | "MAIL_FROM">): ("SMTP_URL" | "MAIL_FROM")[] {
  return [...(e.SMTP_URL ? [] : (["SMTP_URL"] as const)), ...(e.MAIL_FROM ? [] : (["MAIL_FROM"] as const))];
}

const transports = new Map<string, Transporter>();

function transportFor(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer.createTransport(url);
    transports.set(url, t);
  }
  return t;
}

/** Sends one message through SMTP_URL from MAIL_FROM; throws when mail is not configured or the server refuses it. */
export async function sendMail(e: Pick<Env, "SMTP_URL" | "MAIL_FROM">, message: MailMessage): Promise<void> {
  if (!e.SMTP_URL || !e.MAIL_FROM) throw new Error(`mail is not configured (${missingMailVariables(e).join(", ")})`);
  await transportFor(e.SMTP_URL).sendMail({ from: e.MAIL_FROM, ...message });
}
