import "server-only";
import { once } from "node:events";
import { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/server/forms/registry";
import { logEvent } from "@/server/log";

export type LimiterName = "address" | "phone" | `${FormName}_global`;

export type LimitCheck =
  | { ok: true; /** Gives the points back, for a submission that was never delivered. */ release(): Promise<void> }
  | { ok: false; limiter: LimiterName; retryAfterSeconds: number };

type LimiterSpec = { name: LimiterName; points: number; duration: number };

// On globalThis, not in module scope: Next bundles instrumentation.ts and the
// routes apart, each with its own copy of this module. The connection opened
// at start must be the one the actions use, and every copy must count in the
// same memory.
const shared = globalThis as typeof globalThis & {
  rateLimitRedisClients?: Map<string, Redis>;
  rateLimiters?: Map<string, RateLimiterAbstract>;
};
const redisClients = (shared.rateLimitRedisClients ??= new Map<string, Redis>());
const limiters = (shared.rateLimiters ??= new Map<string, RateLimiterAbstract>());

function redisClient(url: string) {
  let client = redisClients.get(url);
  if (!client) {
    // No offline queue: while Redis is away, calls fail at once and the
    // in-memory insurance limiter answers instead of the visitor waiting.
    client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    client.on("error", (error: Error) => logEvent("warn", { event: "redis_error", message: error.message }));
    redisClients.set(url, client);
  }
  return client;
}

/**
 * Opens the Redis connection before the first visitor needs it; until it is
 * ready each instance would count on its own. Resolves false if Redis does not
 * answer in time (the in-memory fallback serves meanwhile, and the client keeps
 * trying).
 */
export async function connectLimitStore(redisUrl: string, timeoutMs = 5_000) {
  const client = redisClient(redisUrl);
  if (client.status === "ready") return true;
  try {
    await once(client, "ready", { signal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}

/**
 * One limiter per rule and setting, made on first use and kept. With REDIS_URL
 * the counts are shared by every instance of the app; without it, or while
 * Redis is unreachable, each instance counts in its own memory.
 */
function limiter(spec: LimiterSpec, redisUrl: string | undefined) {
  const cacheKey = JSON.stringify([spec, redisUrl]);
  let found = limiters.get(cacheKey);
  if (!found) {
    const options = { keyPrefix: `rl:${spec.name}`, points: spec.points, duration: spec.duration };
    const memory = new RateLimiterMemory(options);
    found = redisUrl
      ? new RateLimiterRedis({ ...options, storeClient: redisClient(redisUrl), insuranceLimiter: memory })
      : memory;
    limiters.set(cacheKey, found);
  }
  return found;
}

type Subject = {
  form: FormName;
  address: string;
  /** The number the workflow will text, if the form has one. */
  phone?: string;
  /** The form's ceiling for all addresses together, if it has one. */
  ceilingPerMinute?: number;
};

/** The rules a submission is counted against, in the order they are checked. */
function rulesFor({ form, address, phone, ceilingPerMinute }: Subject, env: ServerEnv) {
  const rules: { spec: LimiterSpec; key: string }[] = [
    {
      spec: { name: "address", points: env.RATE_LIMIT_FORM_POINTS, duration: env.RATE_LIMIT_FORM_WINDOW_SECONDS },
      key: `${form}:${address}`,
    },
  ];
  if (phone) {
    rules.push({
      spec: { name: "phone", points: env.RATE_LIMIT_PHONE_POINTS, duration: env.RATE_LIMIT_PHONE_WINDOW_SECONDS },
      key: phone.replace(/\D/g, ""),
    });
  }
  if (ceilingPerMinute) {
    rules.push({ spec: { name: `${form}_global`, points: ceilingPerMinute, duration: 60 }, key: "all" });
  }
  return rules;
}

/**
 * Counts a submission against every rule that applies to it. The first rule
 * that refuses stops the check, and the points already taken are given back:
 * a refused submission costs the visitor nothing on the other rules.
 */
export async function checkLimits(subject: Subject, env: ServerEnv): Promise<LimitCheck> {
  const taken: { limiter: RateLimiterAbstract; key: string }[] = [];
  const giveBack = () => Promise.all(taken.map(({ limiter, key }) => limiter.reward(key, 1))).then(() => undefined);

  for (const { spec, key } of rulesFor(subject, env)) {
    const rule = limiter(spec, env.REDIS_URL);
    try {
      await rule.consume(key);
      taken.push({ limiter: rule, key });
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      await giveBack();
      return { ok: false, limiter: spec.name, retryAfterSeconds: Math.ceil(refusal.msBeforeNext / 1000) };
    }
  }
  return { ok: true, release: giveBack };
}
