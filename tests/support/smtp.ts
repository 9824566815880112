import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

// A real SMTP server in process (smtp-server) on loopback that records every message it
// accepts: who it was for (the envelope), its headers and its decoded text. Tests point
// SMTP_URL at `url` and wait for the messages they expect; `messages` holds every one, so a
// test can also assert that nothing else arrived.

export interface RecordedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The body as a reader sees it (quoted-printable soft breaks and escapes undone). */
  text: string;
}

export interface SmtpRecorder {
  url: string;
  messages: RecordedMail[];
  /** Resolves with the first message to `to` after `after` messages (default: any), or throws after `ms`. */
  waitFor(to: string, opts?: { ms?: number; after?: number }): Promise<RecordedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes = Buffer.from(
    s.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    "latin1",
  );
  return bytes.toString("utf8");
}

/** The text of a message: each text/plain part (or the single body), decoded. */
function textOf(raw: string): string {
  const parts = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  const out: string[] = [];
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const head = part.slice(0, split);
    const body = part.slice(split).replace(/^\r?\n\r?\n/, "");
    if (!/content-type:\s*text\/(plain|html)/i.test(head)) continue;
    if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) out.push(decodeQuotedPrintable(body));
    else if (/content-transfer-encoding:\s*base64/i.test(head))
      out.push(Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8"));
    else out.push(body);
  }
  return out.join("\n");
}

export async function startSmtpRecorder(): Promise<SmtpRecorder> {
  const messages: RecordedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const subject = /^subject:\s*(.*)$/im.exec(raw)?.[1]?.trim() ?? "";
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw,
          subject,
          text: textOf(raw),
        });
        for (const w of waiters) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(to, opts = {}) {
      const want = to.toLowerCase();
      const after = opts.after ?? 0;
      const find = () => messages.slice(after).find((m) => m.to.includes(want));
      const deadline = Date.now() + (opts.ms ?? 5000);
      for (;;) {
        const found = find();
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${opts.ms ?? 5000} ms`);
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, left);
          waiters.add(done);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
