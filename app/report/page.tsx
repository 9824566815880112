import type { Metadata } from "next";
import { reportLimits } from "@/lib/plans";
import { reportReasons } from "@/lib/safety/schemas";
import { Header } from "../_components/Header";
import { sendReport } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Report abuse · dropsite" };

const REASON_LABELS: Record<(typeof reportReasons)[number], string> = {
  phishing: "Phishing (imitates another site to take passwords or payments)",
  malware: "Malware (harmful or unwanted software)",
  spam: "Spam",
  illegal: "Illegal content",
  copyright: "Copyright infringement",
  other: "Something else",
  appeal: "Appeal: this is my site and it was disabled by mistake",
};

type Search = { url?: string; reason?: string; error?: string; sent?: string };

// /report?url=… – the abuse report form (DSA Art. 16 notice). A plain form posting the fields of
// POST /reports through a server action: it works without JavaScript.
export default async function ReportPage({ searchParams }: { searchParams: Promise<Search> }) {
  const q = await searchParams;
  const reason = reportReasons.find((r) => r === q.reason) ?? "";
  return (
    <>
      <Header />
      <main>
        <h1>Report abuse</h1>
        {q.sent ? (
          <section className="card" aria-labelledby="sent-title">
            <h2 id="sent-title">Report received</h2>
            <p>
              Thank you. Your report <code>{q.sent}</code> is in the review queue; an operator looks at every report
              within 24 hours.
            </p>
          </section>
        ) : null}
        <p className="muted">
          Tell us about a site published here that phishes, spreads malware, spams, breaks the law or infringes
          copyright. Owners of a disabled site can appeal with the same form. Your network address is kept only as a
          keyed hash; at most {reportLimits.perAddressPerHour} reports an hour from one address.
        </p>
        {q.error ? (
          <p className="error" role="alert" id="report-error">
            {q.error}
          </p>
        ) : null}
        <form action={sendReport} className="report-form">
          <p>
            <label htmlFor="report-url">Address of the site</label>
            <br />
            <input
              id="report-url"
              name="url"
              type="url"
              required
              defaultValue={q.url ?? ""}
              placeholder="https://…"
              size={48}
              aria-describedby={q.error ? "report-error" : undefined}
            />
          </p>
          <p>
            <label htmlFor="report-reason">What is wrong</label>
            <br />
            <select id="report-reason" name="reason" required defaultValue={reason}>
              <option value="" disabled>
                Choose one
              </option>
              {reportReasons.map((r) => (
                <option key={r} value={r}>
                  {REASON_LABELS[r]}
                </option>
              ))}
            </select>
          </p>
          <p>
            <label htmlFor="report-details">Details (optional)</label>
            <br />
            <textarea id="report-details" name="details" rows={5} cols={48} maxLength={reportLimits.detailsChars} />
          </p>
          <p>
            <label htmlFor="report-contact">Your email (optional, for our answer)</label>
            <br />
            <input id="report-contact" name="contact" type="email" size={32} autoComplete="email" />
          </p>
          <p>
            <button type="submit" className="button">
              Send report
            </button>
          </p>
        </form>
      </main>
    </>
  );
}
