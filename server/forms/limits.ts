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

export type LimiterName =
  | "address"
  | "phone"
  | "email"
  | `${FormName}_global`
  | `${FormName}_daily`
  | "console_address"
  | "console_operator"
  | "console_search";

export type LimitCheck =
  | {
      ok: true;
      /**
       * Gives back the address's point, the only one that may be: for a post
       * whose receiver proved it processed nothing. The phone, email and
       * form-wide points stay spent, whatever the receiver answered.
       */
      releaseAddress(): Promise<void>;
    }
  | { ok: false; limiter: LimiterName; retryAfterSeconds: number };

type LimiterSpec = { name: LimiterName; points: number; duration: number };

// Process-wide: the connection opened at start must be the one the actions
// use, and every bundle must count in the same memory.
const shared = processWide("rate-limits", () => ({
  redisClients: new Map<string, Redis>(),
  limiters: new Map<string, Limiter>(),
  storeDown: false,
  /** The site's own person key, per database, once read (limit_keys). */
  siteKeys: new Map<string, Promise<string>>(),
  /** A key of this process alone, for while the database cannot give the site's. */
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
    // No offline queue: while Redis is away, calls fail at once. The command
    // timeout bounds a Redis that accepts connections but never answers (a
    // stalled or overloaded server), so a visitor never waits on it.
    client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs });
    client.on("error", (error: Error) => storeDown(error.message));
    redisClients.set(cacheKey, client);
  }
  return client;
}

/**
 * Opens the Redis connection before the first visitor needs it; until it is
 * ready each instance would count on its own. Resolves false if Redis does not
 * answer in time (the in-memory fallback serves meanwhile, and the client keeps
 * trying).
 */
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

/** Whether Redis answers a PING within its command timeout: for the health check. */
export async function pingLimitStore(redisUrl: string, commandTimeoutMs: number) {
  try {
    return (await redisClient(redisUrl, commandTimeoutMs).ping()) === "PONG";
  } catch {
    return false;
  }
}

/** A rule's counter: in Redis when there is one, else (and whenever Redis fails or stalls) in memory. */
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

/**
 * A per-person limit (a number, an address book's email) without Redis: in
 * the database, so it survives a restart and holds across instances. While
 * the database fails, this instance counts in its own memory.
 */
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
      // A refusal is an answer; anything else is the database failing.
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

/**
 * One limiter per rule and setting, made on first use and kept. With REDIS_URL
 * the counts are shared by every instance of the app; without it the
 * per-person limits (a number, an email) count in the database, and the
 * others (an address, the form's ceilings) in each instance's memory. While
 * Redis or the database is unreachable, each instance counts in its own memory.
 */
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
  /** The client's address, canonical (see client-address.ts). */
  address: string;
  /** The number the workflow will text (E.164), if the form has one. */
  phone?: string;
  /** The address the operator will write to, if the form has one. */
  email?: string;
  /** The form's ceilings for every client together, if it has them. */
  ceiling?: { perMinute: number; perDay: number };
};

type Rule = { spec: LimiterSpec; key: string };

/**
 * The secret a limit's person is counted under: RATE_LIMIT_KEY_SECRET when
 * set, else the site's own, made at random by the first instance that needed
 * it and kept in the database for every other (limit_keys), read once per
 * database. While the database cannot give it, a key of this process alone:
 * its counts then do not meet the other instances' (as the memory counts
 * they fall back on do not), and no value is ever counted in clear.
 */
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

/**
 * What a limit counts a person by: an HMAC under personSecret's secret, so no
 * store (Redis, the database's limit_counts, a memory dump) holds a number,
 * an email or an address, nor a hash anyone can reverse by trying every
 * number of an area code, whether or not the operator set a secret.
 */
const personKey = (value: string, secret: string) => createHmac("sha256", secret).update(value).digest("base64url");

/** The site's own person key, made now if it is not yet: the start-up check asks, so the first visitor waits for nothing. */
export async function ensureLimitKey(env: ServerEnv) {
  await personSecret(env);
}

/** The rules a submission is counted against, in the order they are checked: the narrowest first. */
async function rulesFor(subject: Subject, env: ServerEnv): Promise<Rule[]> {
  const { formName, ceiling } = subject;
  const secret = await personSecret(env);
  const address = personKey(subject.address, secret);
  const phone = subject.phone && personKey(subject.phone, secret);
  const email = subject.email && personKey(subject.email.toLowerCase(), secret);
  const day = 86_400;
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
    ...(ceiling
      ? ([
          { spec: { name: `${formName}_global`, points: ceiling.perMinute, duration: 60 }, key: "all" },
          { spec: { name: `${formName}_daily`, points: ceiling.perDay, duration: day }, key: "all" },
        ] as const)
      : []),
  ];
}

/** Warns the operator when a day's budget is 80% used: an attack shows in the log before it shows on the SMS bill. */
function noteBudget(formName: FormName, spec: LimiterSpec, used: number) {
  if (!spec.name.endsWith("_daily") || used !== Math.ceil(spec.points * 0.8)) return;
  logEvent("warn", { event: "daily_budget_80", form: formName, used, limit: spec.points });
}

/**
 * Counts a submission against every rule that applies to it. The first rule
 * that refuses stops the check, and the points already taken are given back:
 * a refused submission costs the visitor nothing on the other rules.
 */
export async function checkLimits(subject: Subject, env: ServerEnv): Promise<LimitCheck> {
  const taken: { limiter: Limiter; rule: Rule }[] = [];
  const giveBack = (which: typeof taken) => Promise.all(which.map(({ limiter, rule }) => limiter.reward(rule.key)));

  for (const rule of await rulesFor(subject, env)) {
    const counter = limiter(rule.spec, env);
    try {
      const counted = await counter.consume(rule.key);
      taken.push({ limiter: counter, rule });
      noteBudget(subject.formName, rule.spec, counted.consumedPoints);
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

/**
 * The console's doors (passkey sign-in, enrolment, setup): each ceremony
 * started counts against its address, 20 in 10 minutes; each answer that
 * names an operator (the passkey's or the link's) against that operator, 10
 * in 10 minutes. Counted where a restart does not forget them (Redis, else
 * the database) and under RATE_LIMIT_KEY_SECRET's HMAC, as the forms' are.
 */
export const consoleLimits = {
  address: { name: "console_address", points: 20, duration: 600 },
  operator: { name: "console_operator", points: 10, duration: 600 },
  search: { name: "console_search", points: 60, duration: 600 },
} as const satisfies Record<string, LimiterSpec>;

/** Counts one console attempt; how long to wait when it is one too many. */
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
