import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Pool } from "pg";
import { POST as deployPOST } from "@/app/deploy/route";
import * as dropsRoute from "@/app/drops/route";
import { countDrops, countFiles } from "@/lib/db/queries";
import { freshLimiter, apiRequest, makeTestContext, startHostedStack, type TestContext } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// Failures of the hosted parts mid-deploy: the request answers 503 upstream_unavailable with
// Retry-After, and nothing of the failed drop is visible or left behind, in the store or the tables.

let t: TestContext;
let stack: Awaited<ReturnType<typeof startHostedStack>>;
let admin: Pool;
const p = { params: Promise.resolve({}) };

beforeAll(async () => {
  stack = await startHostedStack();
  t = await makeTestContext(stack.vars);
  admin = new Pool({ connectionString: stack.pg.url, max: 1 });
  admin.on("error", () => undefined);
  // A deferred constraint trigger fails the transaction at COMMIT while the flag is set.
  await admin.query(`
    create table fault_flags (name text primary key);
    create function fail_at_commit() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from fault_flags where name = 'commit') then
        raise exception 'injected commit failure';
      end if;
      return null;
    end $$;
    create constraint trigger drops_fail_at_commit after insert or update on drops
      deferrable initially deferred for each row execute function fail_at_commit();
  `);
});
afterAll(async () => {
  await admin?.end();
  await t?.close();
  await stack?.pg.stop();
  await stack?.blob.close();
});
beforeEach(async () => {
  await freshLimiter(t);
  stack.blob.reset();
  await admin.query("delete from fault_flags");
});

const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.txt`, `file ${i}`]));
function deploy(n: number, query = "", headers: Record<string, string> = {}) {
  return deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files: files(n) }),
      headers: { "content-type": "application/json", ...headers },
    }),
    p,
  );
}

async function expect503(res: Response) {
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  const body = await res.json();
  expect(body.code).toBe("upstream_unavailable");
  expect(body.hint).toBeTruthy();
  expect(JSON.stringify(body)).not.toMatch(/injected|stack|at /);
}

async function snapshot() {
  return {
    drops: await countDrops(t.ctx.db),
    files: await countFiles(t.ctx.db),
    blobs: [...stack.blob.blobs.keys()].sort(),
  };
}

describe("storage failing mid-deploy", () => {
  it.each([1, 3, 20])("the put of file %i fails: 503, and no bytes or rows remain", async (nth) => {
    const before = await snapshot();
    let puts = 0;
    stack.blob.failNext({ status: 503, code: "service_unavailable", when: (r) => r.kind === "put" && ++puts === nth });
    await expect503(await deploy(20));
    expect(await snapshot()).toEqual(before);
  });
});

describe("the database failing", () => {
  it("at commit: 503, the uploaded bytes are removed and no rows exist", async () => {
    const before = await snapshot();
    await admin.query("insert into fault_flags values ('commit')");
    await expect503(await deploy(5));
    const after = await snapshot();
    expect(after).toEqual(before);
    await admin.query("delete from fault_flags");
    expect((await deploy(5)).status).toBe(200);
  });

  it("at commit of a named redeploy: the old content stays, the new bytes go", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const first = await deploy(2, "?name=stable", bearer(apiKey));
    expect(first.status).toBe(200);
    const before = await snapshot();
    await admin.query("insert into fault_flags values ('commit')");
    await expect503(await deploy(3, "?name=stable", bearer(apiKey)));
    expect(await snapshot()).toEqual(before);
    await admin.query("delete from fault_flags");
    const list = await (await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p)).json();
    expect(list.drops[0]).toMatchObject({ name: "stable", file_count: 2, redeploy_count: 0 });
  });

  it("when the server is gone: 503 and no bytes left behind", async () => {
    const before = await snapshot();
    const blobsBefore = before.blobs;
    await stack.pg.stop();
    await expect503(await deploy(4));
    expect([...stack.blob.blobs.keys()].sort()).toEqual(blobsBefore);
  });
});
