import "server-only";
import path from "node:path";
import { Redis } from "ioredis";
import type { ServerEnv } from "@/server/env";
import { logEvent } from "@/server/log";
import { fileLeadStore } from "./file-store";
import { redisLeadStore } from "./redis-store";
import type { LeadStore } from "./store";

// On globalThis: instrumentation.ts and the routes are bundled apart, and must share one connection.
const shared = globalThis as typeof globalThis & { leadRedisClients?: Map<string, Redis> };
const clients = (shared.leadRedisClients ??= new Map<string, Redis>());

function client(url: string, commandTimeoutMs: number) {
  const cacheKey = `${url} ${commandTimeoutMs}`;
  let found = clients.get(cacheKey);
  if (!found) {
    // Unlike the limits' client, this one queues commands while it connects:
    // a lead waits a moment for Redis rather than failing at once. The
    // timeout (REDIS_COMMAND_TIMEOUT_MS) bounds a Redis that stalls: the lead
    // is then sent without its safety net, and the visitor is not kept waiting.
    found = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs });
    let down = false;
    found.on("error", (error: Error) => {
      if (!down) logEvent("warn", { event: "lead_store_unavailable", store: "redis", message: error.message });
      down = true;
    });
    found.on("ready", () => (down = false));
    clients.set(cacheKey, found);
  }
  return found;
}

/** The pending-lead store for these settings: Redis when REDIS_URL is set, else files under OUTBOX_DIR/pending. */
export function leadStoreFor(env: Pick<ServerEnv, "REDIS_URL" | "REDIS_COMMAND_TIMEOUT_MS" | "OUTBOX_DIR">): LeadStore {
  return env.REDIS_URL
    ? redisLeadStore(client(env.REDIS_URL, env.REDIS_COMMAND_TIMEOUT_MS))
    : fileLeadStore(pendingDir(env.OUTBOX_DIR));
}

export const pendingDir = (outboxDir: string) => path.join(outboxDir, "pending");

/** Closes the Redis connections (the operator's command exits when done). */
export function closeLeadStores() {
  for (const redis of clients.values()) redis.disconnect();
  clients.clear();
}
