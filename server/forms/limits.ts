import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import path from "node:path";
import { once } from "node:events";
import { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { ServerEnv } from "@/server/env";
import type { FormName } from "@/lib/forms";
import { logEvent, messageOf } from "@/server/log";
import { processWide } from "@/server/process-wide";
import { database, sqliteFile, type Store } from "@/server/db/connect";
import { consumeInDatabase, limitKey, rewardInDatabase } from "./limit-store";

export type LimiterName = "address" | "phone" | "email" | "console_address" | "console_operator" | "console_search";

export type LimitCheck =
  | {
      ok: true;
      /** The only point that may be given back: the receiver proved it processed nothing. */
      releaseAddress(): Promise<void>;
    }
  | { ok: false; limiter: LimiterName; retryAfterSeconds: number };

type LimiterSpec = { name: LimiterName; points: number; duration: number };

// Process-wide: the connection opened at start is the one the actions use, and every bundle counts in the same memory.
const shared = processWide("rate-limits", () => ({
  redisClients: new Map<string, Redis>(),
  limiters: new Map<string, Limiter>(),
  storeDown: false,
  siteKeys: new Map<string, Promise<string>>(),
  /** For while the database cannot give the site's key. */
  processKey: randomBytes(32).toString("base64url"),
}));
const { redisClients, limiters, siteKeys } = shared;

/** Says once that the counts moved to memory, and once that they came back; not per reconnect attempt. */
function storeDown(reason: string) {
  if (shared.storeDown) return;
  shared.storeDown = true;
  logEvent("warn", {
    event: "redis_unavailable",
    message: reason,
    fallback: "rate limits count in this instance's memory",
  });
}
function storeUp() {
  if (!shared.storeDown) return;
  shared.storeDown = false;
  logEvent("info", { event: "redis_recovered" });
}

function redisClient(url: string, commandTimeoutMs: number) {
  const cacheKey = `${url} ${commandTimeoutMs}`;
  let client = redisClients.get(cacheKey);
  if (!client) {
    // No offline queue, and a command timeout: a Redis that is away or stalled never keeps a visitor waiting.
    client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs });
    client.on("error", (error: Error) => storeDown(error.message));
    redisClients.set(cacheKey, client);
  }
  return client;
}

/** Before the first visitor needs it: until Redis is ready, each instance counts on its own. */
export async function connectLimitStore(redisUrl: string, commandTimeoutMs: number, timeoutMs = 5_000) {
  const client = redisClient(redisUrl, commandTimeoutMs);
  if (client.status === "ready") return true;
  try {
    await once(client, "ready", { signal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}

export async function pingLimitStore(redisUrl: string, commandTimeoutMs: number) {
  try {
    return (await redisClient(redisUrl, commandTimeoutMs).ping()) === "PONG";
  } catch {
    return false;
  }
}

type Limiter = {
  consume(key: string): Promise<RateLimiterRes>;
  reward(key: string): Promise<unknown>;
};

function sharedLimiter(redis: RateLimiterAbstract, memory: RateLimiterAbstract): Limiter {
  async function withFallback(call: (store: RateLimiterAbstract) => Promise<RateLimiterRes>) {
    try {
      const result = await call(redis);
      storeUp();
      return result;
    } catch (error) {
      // A refusal is an answer; anything else is Redis failing.
      if (error instanceof RateLimiterRes) {
        storeUp();
        throw error;
      }
      storeDown(messageOf(error));
      return call(memory);
    }
  }
  return {
    consume: (key) => withFallback((store) => store.consume(key)),
    reward: (key) => withFallback((store) => store.reward(key, 1)),
  };
}

/** A per-person limit without Redis: in the database, so it survives a restart and holds across instances. */
function databaseLimiter(spec: LimiterSpec, env: ServerEnv, memory: RateLimiterAbstract): Limiter {
  const settings = { DATA_DIR: env.DATA_DIR, DATABASE_URL: env.DATABASE_URL };
  async function withFallback<T>(call: (store: Store) => Promise<T>, fallback: () => Promise<T>) {
    let store: Store;
    try {
      store = await database(settings);
    } catch {
      return fallback();
    }
    try {
      return await call(store);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw error;
      return fallback();
    }
  }
  return {
    consume: (key) =>
      withFallback(
        (store) => consumeInDatabase(store, spec, key),
        () => memory.consume(key),
      ),
    reward: (key) =>
      withFallback<unknown>(
        (store) => rewardInDatabase(store, spec, key),
        () => memory.reward(key, 1),
      ),
  };
}

// The limits that count one person, whom a restart must not forget.
const perPerson = new Set<LimiterName>(["phone", "email", "console_address", "console_operator", "console_search"]);

/** With REDIS_URL every instance shares the counts; without it the per-person limits count in the database and the others in memory. Either unreachable: memory. */
function limiter(spec: LimiterSpec, env: ServerEnv): Limiter {
  const cacheKey = JSON.stringify([spec, env.REDIS_URL, env.REDIS_COMMAND_TIMEOUT_MS, env.DATABASE_URL, env.DATA_DIR]);
  let found = limiters.get(cacheKey);
  if (!found) {
    const options = { keyPrefix: `rl:${spec.name}`, points: spec.points, duration: spec.duration };
    const memory = new RateLimiterMemory(options);
    found = env.REDIS_URL
      ? sharedLimiter(
          new RateLimiterRedis({ ...options, storeClient: redisClient(env.REDIS_URL, env.REDIS_COMMAND_TIMEOUT_MS) }),
          memory,
        )
      : perPerson.has(spec.name)
        ? databaseLimiter(spec, env, memory)
        : memory;
    limiters.set(cacheKey, found);
  }
  return found;
}

type Subject = {
  formName: FormName;
  address: string;
  phone?: string;
  email?: string;
};

type Rule = { spec: LimiterSpec; key: string };

/** RATE_LIMIT_KEY_SECRET, else the site's own key made at random by the first instance and kept in limit_keys; while the database cannot give it, this process's own. */
async function personSecret(env: ServerEnv) {
  if (env.RATE_LIMIT_KEY_SECRET) return env.RATE_LIMIT_KEY_SECRET;
  const where = env.DATABASE_URL ?? path.resolve(sqliteFile(env.DATA_DIR));
  let found = siteKeys.get(where);
  if (!found) {
    found = database({ DATA_DIR: env.DATA_DIR, DATABASE_URL: env.DATABASE_URL }).then((store) =>
      limitKey(store, "person"),
    );
    siteKeys.set(where, found);
    // A failure is not kept: the next count asks the database again.
    found.catch(() => siteKeys.delete(where));
  }
  try {
    return await found;
  } catch (error) {
    logEvent("warn", { event: "limit_key_unread", message: messageOf(error) });
    return shared.processKey;
  }
}

/** An HMAC: no store holds a number, an email or an address, nor a hash anyone can reverse by trying every number of an area code. */
const personKey = (value: string, secret: string) => createHmac("sha256", secret).update(value).digest("base64url");

/** The start-up check makes it, so the first visitor waits for nothing. */
export async function ensureLimitKey(env: ServerEnv) {
  await personSecret(env);
}

async function rulesFor(subject: Subject, env: ServerEnv): Promise<Rule[]> {
  const { formName } = subject;
  const secret = await personSecret(env);
  const address = personKey(subject.address, secret);
  const phone = subject.phone && personKey(subject.phone, secret);
  const email = subject.email && personKey(subject.email.toLowerCase(), secret);
  return [
    {
      spec: { name: "address", points: env.RATE_LIMIT_FORM_POINTS, duration: env.RATE_LIMIT_FORM_WINDOW_SECONDS },
      key: `${formName}:${address}`,
    },
    ...(phone
      ? [
          {
            spec: { name: "phone", points: env.RATE_LIMIT_PHONE_POINTS, duration: env.RATE_LIMIT_PHONE_WINDOW_SECONDS },
            key: phone,
          } as const,
        ]
      : []),
    ...(email
      ? [
          {
            spec: { name: "email", points: env.RATE_LIMIT_EMAIL_POINTS, duration: env.RATE_LIMIT_EMAIL_WINDOW_SECONDS },
            key: `${formName}:${email}`,
          } as const,
        ]
      : []),
  ];
}

/** The first rule that refuses stops the check, and the points taken are given back: a refused submission costs nothing on the other rules. */
export async function checkLimits(subject: Subject, env: ServerEnv): Promise<LimitCheck> {
  const taken: { limiter: Limiter; rule: Rule }[] = [];
  const giveBack = (which: typeof taken) => Promise.all(which.map(({ limiter, rule }) => limiter.reward(rule.key)));

  for (const rule of await rulesFor(subject, env)) {
    const counter = limiter(rule.spec, env);
    try {
      await counter.consume(rule.key);
      taken.push({ limiter: counter, rule });
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      await giveBack(taken);
      return { ok: false, limiter: rule.spec.name, retryAfterSeconds: Math.ceil(refusal.msBeforeNext / 1000) };
    }
  }
  return {
    ok: true,
    releaseAddress: async () => {
      await giveBack(taken.filter(({ rule }) => rule.spec.name === "address"));
    },
  };
}

/** The console's doors: each ceremony counts against its address, each answer naming an operator against that operator, where a restart does not forget. */
export const consoleLimits = {
  address: { name: "console_address", points: 20, duration: 600 },
  operator: { name: "console_operator", points: 10, duration: 600 },
  search: { name: "console_search", points: 60, duration: 600 },
} as const satisfies Record<string, LimiterSpec>;

export async function consumeConsoleAttempt(
  kind: keyof typeof consoleLimits,
  value: string,
  env: ServerEnv,
): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
  const spec = consoleLimits[kind];
  try {
    await limiter(spec, env).consume(personKey(value, await personSecret(env)));
    return { ok: true };
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    return { ok: false, retryAfterSeconds: Math.ceil(refusal.msBeforeNext / 1000) };
  }
}
