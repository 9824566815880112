import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

// The landing page: what the service is and how to use it in one screen.
export default function Home() {
  const base = env().BASE_URL;
  return (
    <main>
      <h1>Publish a static site in one request</h1>
      <p>Send HTML, a JSON map of files or a zip. Get back an unguessable URL where it is served. No account needed.</p>
      <pre>{`curl --data-binary @index.html -H 'content-type: text/html' ${base}/deploy
curl --data-binary @site.zip -H 'content-type: application/zip' ${base}/deploy`}</pre>
    </main>
  );
}
