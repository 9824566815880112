// Start: PostgreSQL, the OIDC provider, the S3 bucket (with --s3), the accounts the mix works on
// (through the real queries, before the app starts), then the built app itself.
import { randomBytes } from "node:crypto";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { createContext } from "../../../lib/context";
import { parseEnv } from "../../../lib/env";
import { insertDropWithFiles } from "../../../lib/db/queries";
import { newApiKey } from "../../../lib/auth/keys";
import { newId, newSlug } from "../../../lib/ids";
import { limits } from "../../../lib/plans";
import { FsStorage } from "../../../lib/storage/fs";
import { S3Storage } from "../../../lib/storage/s3";
import type { Storage } from "../../../lib/storage/types";
import { accountWithKey } from "../accounts";
import { startApp, type RunningApp } from "../app-server";
import { startOidcProvider, type OidcHarness } from "../oidc";
import { startPgServer, type PgServer } from "../pg-server";
import { startS3Server, type S3Server } from "../s3-server";
import { call, jsonOf, someAddress } from "./http";

export interface Account {
  id: string;
  apiKey: string;
}

export interface Accounts {
  /** Two pro accounts: webhooks, the drop appended towards its cap, the named drops. */
  pros: Account[];
  /** Three team accounts racing for vanity subs. */
  teams: Account[];
  /** A free account 3 drops below its cap. */
  free: Account;
  /** An ID token whose account is 2 keys below its cap, and that account. */
  keysToken: string;
  keysAccountId: string;
}

export interface Stack {
  pg: PgServer;
  oidc: OidcHarness;
  /** The bucket, with --s3. */
  s3?: S3Server;
  app: RunningApp;
  /** The store the app writes to, as the checker reads it. */
  storage: Storage;
  /** Keep-alive connections to the app for the whole run. */
  agent: Agent;
  accounts: Accounts;
  appHost: string;
  dropHost(slug: string): string;
}

/** Starts everything; on failure stops what did start. */
export async function startStack(opts: { clients: number; s3?: boolean }): Promise<Stack> {
  const parts: Partial<Stack> = { agent: new Agent({ keepAlive: true, maxSockets: opts.clients * 2 }) };
  try {
    [parts.pg, parts.oidc] = await Promise.all([
      startPgServer({ database: "dropsite_reliability", durable: true }),
      startOidcProvider(),
    ]);
    if (opts.s3) parts.s3 = await startS3Server();
    const seeded = await seedAccounts(parts.pg.url);
    // WEBHOOKS_ALLOW_PRIVATE: the pro accounts' webhooks point at a receiver on loopback.
    parts.app = await startApp({
      ...(parts.s3?.vars ?? {}),
      DATABASE_URL: parts.pg.url,
      OIDC_ISSUER: parts.oidc.issuer,
      OIDC_CLIENT_ID: parts.oidc.clientId,
      TRUST_PROXY: "1",
      RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000000",
      WEBHOOKS_ALLOW_PRIVATE: "1",
    });
    const app = parts.app;
    const keys = await seedKeysAccount(parts as Pick<Stack, "agent" | "app" | "oidc" | "pg">);
    return {
      ...(parts as Pick<Stack, "pg" | "oidc" | "s3" | "app" | "agent">),
      storage: storageOf(app, parts.s3),
      accounts: { ...seeded, ...keys },
      appHost: `localhost:${app.port}`,
      dropHost: (slug) => `${slug}.${app.serveDomain}`,
    };
  } catch (err) {
    await stopStack(parts);
    throw err;
  }
}

export async function stopStack(stack: Partial<Stack>): Promise<void> {
  stack.agent?.destroy();
  await stack.app?.stop();
  await stack.oidc?.close();
  await stack.pg?.stop();
  await stack.s3?.close();
}

function storageOf(app: RunningApp, s3: S3Server | undefined): Storage {
  if (!s3) return new FsStorage(path.join(app.dataDir, "blobs"));
  return new S3Storage({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    forcePathStyle: true,
  });
}

/** The pro, team and free accounts, through the real queries (migrations apply on open). */
async function seedAccounts(databaseUrl: string): Promise<Pick<Accounts, "pros" | "teams" | "free">> {
  const setup = await createContext(parseEnv({ DATABASE_URL: databaseUrl, DATA_DIR: tmpdir(), NODE_ENV: "test" }));
  try {
    const make = async (plan: "pro" | "team" | "free"): Promise<Account> => {
      const a = await accountWithKey(setup, plan);
      return { id: a.account.id, apiKey: a.apiKey };
    };
    const pros = [await make("pro"), await make("pro")];
    const teams = [await make("team"), await make("team"), await make("team")];
    const free = await make("free");
    // The free account starts 3 drops below its cap (empty drops, through the insert the app uses).
    for (let i = 0; i < limits.free.maxDrops! - 3; i++) {
      const now = new Date();
      await insertDropWithFiles(
        setup.db,
        {
          id: newId(),
          slug: newSlug(),
          ownerId: free.id,
          name: null,
          fileCount: 0,
          totalBytes: 0,
          createdAt: now,
          updatedAt: now,
        },
        [],
      );
    }
    return { pros, teams, free };
  } finally {
    await setup.dbHandle.close();
  }
}

/** The keys account: created by its first mint (an ID token), then given keys up to 2 below the cap. */
async function seedKeysAccount({
  agent,
  app,
  oidc,
  pg: pgServer,
}: Pick<Stack, "agent" | "app" | "oidc" | "pg">): Promise<Pick<Accounts, "keysToken" | "keysAccountId">> {
  const keysToken = await oidc.mintIdToken({
    sub: `rel-keys-${randomBytes(4).toString("hex")}`,
    email: "keys@example.test",
  });
  const firstMint = await call(agent, app.port, `localhost:${app.port}`, "/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${keysToken}`, "x-forwarded-for": someAddress() },
  });
  if (firstMint.status !== 201)
    throw new Error(`setup: POST /keys answered ${firstMint.status}: ${firstMint.body.toString()}`);
  const keysAccountId = jsonOf<{ accountId: string }>(firstMint).accountId;
  const db = new pg.Client({ connectionString: pgServer.url });
  await db.connect();
  try {
    for (let i = 0; i < limits.free.maxKeys - 3; i++) {
      const k = newApiKey();
      await db.query("insert into api_keys (id, account_id, prefix, note) values ($1, $2, $3, 'reliability')", [
        k.keyId,
        keysAccountId,
        k.prefix,
      ]);
    }
  } finally {
    await db.end();
  }
  return { keysToken, keysAccountId };
}
