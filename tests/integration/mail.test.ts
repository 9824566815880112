import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { missingMailVariables, sendMail } from "@/lib/mail";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";

// Outgoing mail through a real SMTP server in process: SMTP_URL and MAIL_FROM in the one env
// module, nodemailer's transport, and what the recorder of tests/support/smtp.ts sees.

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(() => smtp.close());

describe("mail", () => {
  it("sends a message through SMTP_URL from MAIL_FROM, to that address only", async () => {
    const e = parseEnv({ SMTP_URL: smtp.url, MAIL_FROM: "Dropsite <no-reply@example.test>" });
    await sendMail(e, {
      to: "Ana@Example.test",
      subject: "Hello",
      text: `A line longer than seventy-six characters so that it is encoded: https://example.test/${"x".repeat(80)}`,
      html: "<p>Hello</p>",
    });
    const got = await smtp.waitFor("ana@example.test");
    expect(got.from).toBe("no-reply@example.test");
    expect(got.to).toEqual(["ana@example.test"]);
    expect(got.subject).toBe("Hello");
    expect(got.text).toContain(`https://example.test/${"x".repeat(80)}`);
    expect(smtp.messages).toHaveLength(1);
  });

  it("names the variables that are missing, and refuses to send without them", async () => {
    expect(missingMailVariables(parseEnv({}))).toEqual(["SMTP_URL", "MAIL_FROM"]);
    expect(missingMailVariables(parseEnv({ SMTP_URL: smtp.url }))).toEqual(["MAIL_FROM"]);
    expect(missingMailVariables(parseEnv({ SMTP_URL: smtp.url, MAIL_FROM: "a@b.test" }))).toEqual([]);
    await expect(
      sendMail(parseEnv({ MAIL_FROM: "a@b.test" }), { to: "x@y.test", subject: "s", text: "t", html: "" }),
    ).rejects.toThrow(/SMTP_URL/);
  });

  it("refuses malformed SMTP_URL and MAIL_FROM at start, naming the variable", () => {
    expect(() => parseEnv({ SMTP_URL: "http://mail.example.test" })).toThrow(/SMTP_URL/);
    expect(() => parseEnv({ MAIL_FROM: "not an address" })).toThrow(/MAIL_FROM/);
  });
});
