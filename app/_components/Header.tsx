import Link from "next/link";
import { sessionPerson } from "@/lib/auth/session";

export async function Header() {
  const caller = await sessionPerson().catch(() => null);
  return (
    <header className="site-header">
      <Link href="/" className="brand">
        dropsite
      </Link>
      <nav aria-label="Main">
        <Link href="/docs">Docs</Link>
        <Link href="/#pricing">Pricing</Link>
        {caller ? <Link href="/dashboard">Dashboard</Link> : <Link href="/login">Log in</Link>}
      </nav>
    </header>
  );
}
