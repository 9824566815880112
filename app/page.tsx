import { env } from "@/lib/env";
import { DropZone } from "./_components/DropZone";
import { CodeBlock } from "./_components/CodeBlock";
import { Header } from "./_components/Header";
import { Pricing } from "./_components/Pricing";

export const dynamic = "force-dynamic";

// The landing page: what the service is, a drop zone, code samples and pricing.
export default function Home() {
  const base = env().BASE_URL;
  const mcp = JSON.stringify(
    { mcpServers: { dropsite: { url: `${base}/mcp`, headers: { Authorization: "Bearer sp_…" } } } },
    null,
    2,
  );
  return (
    <>
      <Header />
      <main>
        <section className="hero">
          <h1>Publish a static site in one request</h1>
          <p className="lead">
            Send HTML, a JSON map of files or a zip. Get back an unguessable URL where it is served. No account needed;
            agents welcome.
          </p>
        </section>
        <DropZone />
        <section aria-labelledby="samples-title">
          <h2 id="samples-title">From a terminal, CI or an agent</h2>
          <div className="samples">
            <div>
              <h3>curl</h3>
              <CodeBlock label="the curl example">{`curl --data-binary @index.html \\
  -H 'content-type: text/html' ${base}/deploy

curl --data-binary @site.zip \\
  -H 'content-type: application/zip' ${base}/deploy`}</CodeBlock>
            </div>
            <div>
              <h3>MCP (agents)</h3>
              <CodeBlock label="the MCP configuration">{mcp}</CodeBlock>
            </div>
          </div>
        </section>
        <Pricing />
      </main>
    </>
  );
}
