import "server-only";
import { readdir, readFile, rename } from "node:fs/promises";
import path from "node:path";
import { Redis } from "ioredis";
import { z } from "zod";
import type { Store } from "@/server/db/connect";
import type { ServerEnv } from "@/server/env";
import { rowOf } from "@/server/leads/lead";
import { importLead } from "@/server/leads/lead-store";
import { logEvent, messageOf } from "@/server/log";

// A lead as the file and Redis stores kept it, before the database.
const legacyLead = z.object({
  id: z.string().regex(/^msg_[\w-]+$/),
  form: z.string(),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  payload: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
  attempts: z.number().int().min(0),
  rounds: z.number().int().min(0),
  nextAttemptAt: z.number(),
  lastFailure: z.string().optional(),
  state: z.enum(["pending", "dead"]),
});

function parseLegacy(text: string | null) {
  try {
    const parsed = legacyLead.safeParse(JSON.parse(text ?? ""));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/** Inserts the old leads with their webhook-ids and schedule; one already there (imported by another instance) is left as it is. */
async function insertAll(store: Store, texts: (string | null)[]) {
  const leads = texts.map(parseLegacy).filter((lead) => lead !== undefined);
  for (const lead of leads) await importLead(store, rowOf({ ...lead, body: JSON.stringify(lead.payload) }, lead.key));
  return { found: texts.length, imported: leads.length };
}

/** The file store: DATA_DIR/pending/<key>.json. The folder is renamed once its leads are in the table. */
async function importFiles(store: Store, dataDir: string) {
  const dir = path.join(dataDir, "pending");
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
  } catch (error) {
    if (missing(error)) return;
    throw error;
  }
  const texts = await Promise.all(names.map((name) => readFile(path.join(dir, name), "utf8").catch(() => null)));
  const counts = await insertAll(store, texts);
  const renamedTo = `${dir}.imported-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  // Another instance may have renamed it first.
  await rename(dir, renamedTo).catch((error: unknown) => {
    if (!missing(error)) throw error;
  });
  logEvent("info", { event: "legacy_leads_imported", from: "files", ...counts, renamedTo });
}

/** The Redis store: the set leads:all names leads:lead:<key>. Each key is renamed under leads:imported: once its lead is in the table. */
async function importRedis(store: Store, url: string) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true, connectTimeout: 3_000 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    const keys = await redis.smembers("leads:all");
    if (!keys.length) return;
    const records = keys.map((key) => `leads:lead:${key}`);
    const counts = await insertAll(store, await redis.mget(records));
    const renames = redis.multi();
    for (const record of records) renames.renamenx(record, record.replace(/^leads:/, "leads:imported:"));
    renames.renamenx("leads:all", "leads:imported:all");
    await renames.exec();
    logEvent("info", { event: "legacy_leads_imported", from: "redis", ...counts });
  } finally {
    redis.disconnect();
  }
}

/**
 * Upgrades lose nothing: the pending and dead leads the stores before the
 * database kept are imported at start, then their files and keys renamed,
 * never deleted. A failure is logged and the import tried again at the next start.
 */
export async function importLegacyLeads(store: Store, env: Pick<ServerEnv, "DATA_DIR" | "REDIS_URL">) {
  const sources = [
    () => importFiles(store, env.DATA_DIR),
    ...(env.REDIS_URL ? [() => importRedis(store, env.REDIS_URL!)] : []),
  ];
  for (const source of sources) {
    await source().catch((error: unknown) =>
      logEvent("error", { event: "legacy_import_failed", message: messageOf(error) }),
    );
  }
}
