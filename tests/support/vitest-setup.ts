import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, vi } from "vitest";
import type * as NextServer from "next/server";
import { cookieAttributes, cookieJar, pinRequestHeaders } from "./request-headers";

// "server-only" throws outside React's server bundle; the unit tests are server code.
vi.mock("server-only", () => ({}));
// Server actions read the request's headers and cookies; outside Next there is no request.
vi.mock("next/headers", () => import("./request-headers"));
// after() keeps work running once a request is answered; a test has no request to answer, so it runs the work at once.
vi.mock("next/server", async (original) => ({
  ...(await original<typeof NextServer>()),
  after: (task: Promise<unknown> | (() => unknown)) => void (typeof task === "function" ? task() : task),
}));

afterEach(() => {
  pinRequestHeaders(undefined);
  cookieJar.clear();
  cookieAttributes.clear();
  // A test that set the clock (vi.setSystemTime) or faked timers leaves the next one the real ones.
  vi.useRealTimers();
});

// The SQLite database of a test file goes to a folder of its own, not ./data.
const dataDir = mkdtempSync(path.join(tmpdir(), "sous-unit-"));
process.env.DATA_DIR = dataDir;
delete process.env.DATABASE_URL;
// The tests' requests come as through one proxy: each writes the X-Forwarded-For of the visitor it plays.
process.env.TRUSTED_PROXY_HOPS = "1";
// The waitlist's texts budget is met only by the tests that set one: it counts every sign-up of the file's database.
process.env.RATE_LIMIT_WAITLIST_PER_MINUTE = "100000";
process.env.WAITLIST_DAILY_LIMIT = "100000";
afterAll(async () => {
  // Imported here, not above: loaded before a test file's vi.mock, the settings would read the real form registry.
  const { closeDatabases } = await import("@/server/db/connect");
  await closeDatabases();
  rmSync(dataDir, { recursive: true, force: true });
});
