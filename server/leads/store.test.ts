import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer } from "@/tests/support/redis-server";
import type { Started } from "@/tests/support/processes";
import { fileLeadStore } from "./file-store";
import { leadKey, type Lead } from "./lead";
import { redisLeadStore } from "./redis-store";
import type { LeadStore } from "./store";

let counter = 0;
function newLead(overrides: Partial<Lead> = {}): Lead {
  counter += 1;
  const payload = { phone: "+15551234567", name: `Ada ${counter}` };
  return {
    id: `msg_test${counter}`,
    form: "waitlist",
    key: leadKey("waitlist", payload),
    payload,
    createdAt: 1_000,
    attempts: 0,
    rounds: 0,
    nextAttemptAt: 2_000,
    state: "pending",
    ...overrides,
  };
}

let dir: string;
let redisServer: Started;
let redis: Redis;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "leads-"));
  redisServer = await startRedisServer();
  redis = new Redis(redisServer.url);
}, 30_000);
afterAll(async () => {
  redis.disconnect();
  await redisServer.stop();
  await rm(dir, { recursive: true, force: true });
});

const stores: [string, () => LeadStore][] = [
  ["files", () => fileLeadStore(dir)],
  ["Redis", () => redisLeadStore(redis, `test${counter}`)],
];

describe.each(stores)("the lead store in %s", (_name, makeStore) => {
  it("keeps a lead until it is removed", async () => {
    const store = makeStore();
    const lead = newLead();
    expect(await store.add(lead)).toStrictEqual(lead);
    expect(await store.get(lead.key)).toStrictEqual(lead);
    expect(await store.list()).toContainEqual(lead);
    await store.remove(lead.key);
    expect(await store.get(lead.key)).toBeUndefined();
    expect(await store.list()).not.toContainEqual(lead);
    await store.remove(lead.key); // twice is fine
  });

  it("keeps the first copy of a lead: a second with its key gets the first back", async () => {
    const store = makeStore();
    const first = newLead();
    const second = { ...first, id: "msg_second", createdAt: 5_000 };
    await store.add(first);
    expect(await store.add(second)).toStrictEqual(first);
    expect(await store.get(first.key)).toStrictEqual(first);
  });

  it("updates a kept lead, and does not bring back a settled one", async () => {
    const store = makeStore();
    const lead = newLead();
    await store.add(lead);
    await store.update({ ...lead, attempts: 3, lastFailure: "status 503" });
    expect(await store.get(lead.key)).toMatchObject({ attempts: 3, lastFailure: "status 503" });
    await store.remove(lead.key);
    await store.update({ ...lead, attempts: 4 });
    expect(await store.get(lead.key)).toBeUndefined();
  });

  it("lends a lead to one holder at a time, until released or expired", async () => {
    const [a, b] = [makeStore(), makeStore()];
    const { key } = newLead();
    expect(await a.lease(key, 60_000)).toBe(true);
    expect(await b.lease(key, 60_000)).toBe(false);
    expect(await a.lease(key, 60_000)).toBe(false);
    await a.release(key);
    expect(await b.lease(key, 100)).toBe(true);
    // A holder that died: its lease runs out.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await a.lease(key, 60_000)).toBe(true);
  });
});

describe("the lead store in files", () => {
  it("writes each lead whole, readable by the server's user only, and leaves no temporary file", async () => {
    const parent = await mkdtemp(path.join(tmpdir(), "leads-"));
    const folder = path.join(parent, "pending");
    const lead = newLead();
    await fileLeadStore(folder).add(lead);
    expect(await readdir(folder)).toStrictEqual([`${lead.key}.json`]);
    expect((await stat(path.join(folder, `${lead.key}.json`))).mode & 0o777).toBe(0o600);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    await rm(parent, { recursive: true });
  });

  it("ignores a stray temporary file, a truncated lead and anything else in the folder", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "leads-"));
    const store = fileLeadStore(folder);
    const lead = newLead();
    const whole = JSON.stringify(lead);
    const other = newLead();
    await writeFile(path.join(folder, `${lead.key}.json.1234.tmp`), whole);
    await writeFile(path.join(folder, `${other.key}.json`), JSON.stringify(other).slice(0, 40));
    await writeFile(path.join(folder, "notes.txt"), "hello");
    await writeFile(path.join(folder, `${"0".repeat(64)}.json`), JSON.stringify({ ...other, id: "not an id" }));
    expect(await store.list()).toStrictEqual([]);
    expect(await store.get(other.key)).toBeUndefined();
    await rm(folder, { recursive: true });
  });
});
