import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, vi } from "vitest";
import { pinRequestHeaders } from "./request-headers";

// "server-only" throws outside React's server bundle; the unit tests are server code.
vi.mock("server-only", () => ({}));
// Server actions read the request's headers; outside Next there is no request.
vi.mock("next/headers", () => import("./request-headers"));

afterEach(() => pinRequestHeaders(undefined));

// Pending leads and outbox files of a test file go to a folder of its own, not ./data.
const dataDir = mkdtempSync(path.join(tmpdir(), "sous-unit-"));
process.env.OUTBOX_DIR = dataDir;
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
