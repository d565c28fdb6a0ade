import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Store } from "@/server/db/connect";
import { startPostgresServer, type PostgresServer } from "@/tests/support/postgres-server";
import { claimAlert } from "./alerts";

let dir: string;
let postgres: PostgresServer;
const opened: Store[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "sous-alerts-"));
  postgres = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await Promise.all(opened.map((store) => store.db.destroy()));
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A connection of its own: two of them on one database are two instances. */
async function open(engine: "sqlite" | "postgres") {
  const store = await connect(engine === "sqlite" ? { DATA_DIR: dir, DATABASE_URL: undefined } : { DATA_DIR: dir, DATABASE_URL: postgres.url });
  opened.push(store);
  return store;
}

describe.each(["sqlite", "postgres"] as const)("claimAlert on %s", (engine) => {
  it("lets one instance of many send an alert of a kind for a form per interval", async () => {
    const [a, b] = [await open(engine), await open(engine)];
    const hour = 3_600_000;
    const claims = await Promise.all([a, b, a, b].map((store) => claimAlert(store, "dead", "waitlist", 10 * hour, hour)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    // Another kind, another form: their own interval.
    expect(await claimAlert(b, "failing", "waitlist", 10 * hour, hour)).toBe(true);
    expect(await claimAlert(b, "dead", "contact", 10 * hour, hour)).toBe(true);
    expect(await claimAlert(a, "dead", "waitlist", 10 * hour + hour - 1, hour)).toBe(false);
    expect(await claimAlert(a, "dead", "waitlist", 11 * hour, hour)).toBe(true);
    expect(await claimAlert(b, "dead", "waitlist", 11 * hour + 1, hour)).toBe(false);
  });
});
