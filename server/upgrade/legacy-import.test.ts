import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { closeDatabases, database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupRedisServer } from "@/tests/support/setup-redis-server";
import { importLegacyLeads } from "./legacy-import";
import { leadById, listLeads } from "@/server/leads/lead-store";

const redisServer = setupRedisServer();
let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "sous-upgrade-"));
  vi.stubEnv("DATA_DIR", dataDir);
  for (const method of ["info", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
  // Closed first: an open database's checkpointer writes into the folder while it is removed.
  return async () => {
    await closeDatabases();
    await rm(dataDir, { recursive: true, force: true });
  };
});

/** A lead as the file and Redis stores wrote it. */
const legacy = (n: number, overrides: object = {}) => ({
  id: `msg_legacy-${n}`,
  form: "waitlist",
  key: String(n).repeat(64).slice(0, 64),
  payload: { phone: "+15551234567", name: `Old ${n}` },
  createdAt: 1_700_000_000_000 + n,
  attempts: 3,
  rounds: 2,
  nextAttemptAt: 1_700_000_900_000 + n,
  lastFailure: "status 503",
  state: "pending",
  ...overrides,
});

describe("the upgrade import", () => {
  it("brings the file store's pending and dead leads in with their webhook-ids and schedule, then renames the folder", async () => {
    const pending = path.join(dataDir, "pending");
    await mkdir(pending);
    await writeFile(path.join(pending, `${"1".repeat(64)}.json`), JSON.stringify(legacy(1)));
    await writeFile(path.join(pending, `${"2".repeat(64)}.json`), JSON.stringify(legacy(2, { state: "dead" })));
    // A half-written temporary file and a lease are not leads.
    await writeFile(path.join(pending, `${"3".repeat(64)}.json.x.tmp`), JSON.stringify(legacy(3)));
    await writeFile(path.join(pending, `${"1".repeat(64)}.lease`), "0");
    // Nor is a copy whose name only ends like one.
    await writeFile(path.join(pending, `copy-of-${"6".repeat(64)}.json`), JSON.stringify(legacy(6)));
    const store = await database(readEnv());

    await writeFile(path.join(pending, `${"4".repeat(64)}.json`), "{truncated");
    await importLegacyLeads(store, readEnv());
    const logged = vi.mocked(console.info).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "info",
        event: "legacy_leads_imported",
        from: "files",
        found: 3,
        imported: 2,
        renamedTo: expect.stringMatching(/pending\.imported-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/),
      }),
    );
    expect(await leadById(store, "msg_legacy-1")).toMatchObject({
      form: "waitlist",
      state: "pending",
      attempts: 3,
      rounds: 2,
      created_at: 1_700_000_000_001,
      next_attempt_at: 1_700_000_900_001,
      last_failure: "status 503",
      dedupe_key: "1".repeat(64),
      payload: JSON.stringify({ phone: "+15551234567", name: "Old 1" }),
    });
    expect(await leadById(store, "msg_legacy-2")).toMatchObject({ state: "dead" });
    expect(await leadById(store, "msg_legacy-3")).toBeUndefined();
    expect(await leadById(store, "msg_legacy-6")).toBeUndefined();
    const names = await readdir(dataDir);
    expect(names).not.toContain("pending");
    const renamed = names.find((name) => name.startsWith("pending.imported-"));
    expect(await readdir(path.join(dataDir, renamed!))).toHaveLength(6);

    // A second start finds nothing to import, and changes nothing.
    await importLegacyLeads(store, readEnv());
    expect(
      (await listLeads(store, { states: ["pending", "dead"] })).filter((row) => row.id.startsWith("msg_legacy-")),
    ).toHaveLength(2);
  });

  it("brings Redis's pending leads in when REDIS_URL is set, then renames their keys", async () => {
    vi.stubEnv("REDIS_URL", redisServer.url);
    const lead = legacy(4, { id: "msg_legacy-redis" });
    await redisServer.client.set(`leads:lead:${lead.key}`, JSON.stringify(lead));
    await redisServer.client.sadd("leads:all", lead.key);
    const store = await database(readEnv());

    await importLegacyLeads(store, readEnv());
    expect(await leadById(store, "msg_legacy-redis")).toMatchObject({
      state: "pending",
      attempts: 3,
      dedupe_key: lead.key,
    });
    expect(await redisServer.client.exists(`leads:lead:${lead.key}`, "leads:all")).toBe(0);
    expect(JSON.parse((await redisServer.client.get(`leads:imported:lead:${lead.key}`)) ?? "")).toStrictEqual(lead);
    expect(await redisServer.client.smembers("leads:imported:all")).toStrictEqual([lead.key]);
    const logged = vi.mocked(console.info).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: "info", event: "legacy_leads_imported", from: "redis", found: 1, imported: 1 }),
    );
  });

  it("lets its Redis connection go once the keys are renamed", async () => {
    vi.stubEnv("REDIS_URL", redisServer.url);
    // From nothing: renamenx keeps leads:all where an earlier test left leads:imported:all.
    await redisServer.client.flushall();
    const lead = legacy(7, { id: "msg_legacy-let-go" });
    await redisServer.client.set(`leads:lead:${lead.key}`, JSON.stringify(lead));
    await redisServer.client.sadd("leads:all", lead.key);
    const clients = async () =>
      String(await redisServer.client.client("LIST"))
        .trim()
        .split("\n").length;
    const before = await clients();
    const store = await database(readEnv());

    await importLegacyLeads(store, readEnv());
    expect(await leadById(store, "msg_legacy-let-go")).toMatchObject({ state: "pending" });
    // The server drops the connection once it reads the close: polled, not slept.
    await expect.poll(clients).toBe(before);
  });

  it("leaves the folder to a second instance that renamed it first, and says nothing failed", async () => {
    const pending = path.join(dataDir, "pending");
    await mkdir(pending);
    await writeFile(path.join(pending, `${"8".repeat(64)}.json`), JSON.stringify(legacy(8)));
    const store = await database(readEnv());

    // Both read the folder before either renames it: one rename finds it gone.
    await Promise.all([importLegacyLeads(store, readEnv()), importLegacyLeads(store, readEnv())]);
    expect(await leadById(store, "msg_legacy-8")).toMatchObject({ state: "pending" });
    expect(vi.mocked(console.error)).not.toHaveBeenCalled();
    expect((await readdir(dataDir)).filter((name) => name.startsWith("pending"))).toHaveLength(1);
  });

  it("logs a rename that fails for another reason, and leaves the folder for the next start", async () => {
    const pending = path.join(dataDir, "pending");
    await mkdir(pending);
    await writeFile(path.join(pending, `${"9".repeat(64)}.json`), JSON.stringify(legacy(9)));
    const store = await database(readEnv());
    // The name the rename would take is a folder with something in it already.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
    const taken = path.join(dataDir, "pending.imported-2026-01-02T03-04-05-006Z");
    await mkdir(taken);
    await writeFile(path.join(taken, "kept"), "");
    try {
      await importLegacyLeads(store, readEnv());
    } finally {
      vi.useRealTimers();
    }
    expect(await leadById(store, "msg_legacy-9")).toMatchObject({ state: "pending" });
    const failures = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(failures).toStrictEqual([
      expect.objectContaining({ event: "legacy_import_failed", message: expect.stringMatching(/ENOTEMPTY|EEXIST/) }),
    ]);
    expect(await readdir(pending)).toStrictEqual([`${"9".repeat(64)}.json`]);
  });

  it("logs a pending that is not a folder rather than skip it as absent", async () => {
    await writeFile(path.join(dataDir, "pending"), "not a folder");
    const store = await database(readEnv());
    await importLegacyLeads(store, readEnv());
    const failures = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(failures).toStrictEqual([
      expect.objectContaining({ event: "legacy_import_failed", message: expect.stringContaining("ENOTDIR") }),
    ]);
  });

  it("finds nothing to do on a site that never had the old stores, and logs nothing; the same start with an old folder imports it", async () => {
    vi.stubEnv("REDIS_URL", redisServer.url);
    const store = await database(readEnv());
    const before = await listLeads(store, {});
    await importLegacyLeads(store, readEnv());
    expect(vi.mocked(console.info).mock.calls.filter((call) => String(call[0]).includes("legacy"))).toStrictEqual([]);
    expect(vi.mocked(console.error)).not.toHaveBeenCalled();
    expect(await listLeads(store, {})).toStrictEqual(before);

    await mkdir(path.join(dataDir, "pending"));
    await writeFile(path.join(dataDir, "pending", `${"5".repeat(64)}.json`), JSON.stringify(legacy(5)));
    await importLegacyLeads(store, readEnv());
    expect(await leadById(store, "msg_legacy-5")).toMatchObject({ state: "pending" });
    expect(
      vi.mocked(console.info).mock.calls.filter((call) => String(call[0]).includes("legacy_leads_imported")),
    ).toHaveLength(1);
  });

  it("imports the files even when Redis cannot be reached, and says what failed", async () => {
    await mkdir(path.join(dataDir, "pending"));
    await writeFile(path.join(dataDir, "pending", `${"5".repeat(64)}.json`), JSON.stringify(legacy(5)));
    vi.stubEnv("REDIS_URL", "redis://127.0.0.1:1");
    const store = await database(readEnv());
    await importLegacyLeads(store, readEnv());
    expect(await leadById(store, "msg_legacy-5")).toMatchObject({ state: "pending" });
    const failures = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(failures).toStrictEqual([
      expect.objectContaining({ level: "error", event: "legacy_import_failed", message: expect.any(String) }),
    ]);
  });
});
