import Link from "next/link";
import { Header } from "./_components/Header";

// Pages that call notFound() (an unknown drop in the dashboard) render this.
export default function NotFound() {
  return (
    <>
      <Header />
      <main>
        <h1>Page not found</h1>
        <p>There is nothing here.</p>
        <p>
          <Link href="/">Home</Link> · <Link href="/docs">Docs</Link> · <Link href="/dashboard">Dashboard</Link> ·{" "}
          <Link href="/report">Report abuse</Link>
        </p>
      </main>
    </>
  );
}
