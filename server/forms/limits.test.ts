import { createHash, createHmac } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { closeDatabases, database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupRedisServer } from "@/tests/support/setup-redis-server";
import { freePort } from "@/tests/support/processes";
import { freshAddress } from "@/tests/support/request-headers";
import { processWide } from "@/server/process-wide";
import { checkLimits, connectLimitStore, consoleLimits, consumeConsoleAttempt } from "./limits";
import { withEnv } from "@/tests/support/check-schema";

/** The key a count of `value` has under `secret`, computed here apart from the server's code. */
const hmacKey = (secret: string, value: string) => createHmac("sha256", secret).update(value).digest("base64url");

let counter = 0;
const uniquePhone = () => `+1555${String((counter += 1)).padStart(7, "0")}`;

beforeEach(() => {
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

const logged = (event: string) =>
  (["info", "warn", "error"] as const)
    .flatMap((method) => vi.mocked(console[method]).mock.calls)
    .map((call) => JSON.parse(String(call[0])))
    .filter((line) => line.event === event);

describe("checkLimits without Redis", () => {
  it("keeps a number's count in the database: a restarted server (its counters in memory gone) still refuses it, the address counts anew", async () => {
    const env = withEnv({ DATA_DIR: process.env.DATA_DIR!, RATE_LIMIT_PHONE_POINTS: "1" }, () => readEnv());
    const phone = uniquePhone();
    expect(await checkLimits({ formName: "waitlist", address: freshAddress(), phone }, env)).toMatchObject({
      ok: true,
    });
    // What a restart forgets: every counter this process kept.
    processWide("rate-limits", () => ({ limiters: new Map() })).limiters.clear();
    expect(await checkLimits({ formName: "waitlist", address: freshAddress(), phone }, env)).toMatchObject({
      ok: false,
      limiter: "phone",
    });
    // Its working twin: another number is taken.
    expect(
      await checkLimits({ formName: "waitlist", address: freshAddress(), phone: uniquePhone() }, env),
    ).toMatchObject({
      ok: true,
    });
  });

  it("gives back only the address's point when asked, never the phone's", async () => {
    const env = withEnv(
      { DATA_DIR: process.env.DATA_DIR!, RATE_LIMIT_FORM_POINTS: "1", RATE_LIMIT_PHONE_POINTS: "1" },
      () => readEnv(),
    );
    const address = freshAddress();
    const phone = uniquePhone();
    const first = await checkLimits({ formName: "waitlist", address, phone }, env);
    if (!first.ok) throw new Error("the first sign-up is refused");
    await first.releaseAddress();

    // The address may post again; the number may not.
    expect(await checkLimits({ formName: "waitlist", address, phone }, env)).toMatchObject({
      ok: false,
      limiter: "phone",
    });
    expect(await checkLimits({ formName: "waitlist", address, phone: uniquePhone() }, env)).toMatchObject({ ok: true });
  });
});

describe("the console's attempts, without Redis", () => {
  it("take 20 ceremonies from an address and 10 answers for an operator in 10 minutes, kept in the database under the HMAC; another address or operator is counted apart", async () => {
    const secret = "k".repeat(32);
    const env = withEnv({ DATA_DIR: process.env.DATA_DIR!, RATE_LIMIT_KEY_SECRET: secret }, () => readEnv());
    const address = freshAddress();
    for (let attempt = 1; attempt <= 20; attempt += 1)
      expect(await consumeConsoleAttempt("address", address, env), `attempt ${attempt}`).toStrictEqual({ ok: true });
    // A restart forgets nothing of it.
    processWide("rate-limits", () => ({ limiters: new Map() })).limiters.clear();
    const refused = await consumeConsoleAttempt("address", address, env);
    expect(refused).toMatchObject({ ok: false });
    expect(refused.ok === false && refused.retryAfterSeconds).toBeGreaterThan(590);
    expect(refused.ok === false && refused.retryAfterSeconds).toBeLessThanOrEqual(600);
    expect(await consumeConsoleAttempt("address", freshAddress(), env)).toStrictEqual({ ok: true });

    const operator = `op_${uniquePhone()}`;
    for (let attempt = 1; attempt <= 10; attempt += 1)
      expect(await consumeConsoleAttempt("operator", operator, env)).toStrictEqual({ ok: true });
    expect(await consumeConsoleAttempt("operator", operator, env)).toMatchObject({ ok: false });
    expect(await consumeConsoleAttempt("operator", `${operator}x`, env)).toStrictEqual({ ok: true });

    // Kept as the HMAC of the value, never the value.
    const store = await database(env);
    const keys = (await store.db.selectFrom("limit_counts").select("key").execute()).map((row) => row.key);
    const { name, points, duration } = consoleLimits.operator;
    const rowKey = (value: string) =>
      createHash("sha256").update(`${name}\n${points}\n${duration}\n${value}`).digest("hex");
    expect(keys).toContain(rowKey(hmacKey(secret, operator)));
    expect(keys).not.toContain(rowKey(operator));
  });
});

describe("checkLimits with Redis", () => {
  const redis = setupRedisServer();

  it("keys every count by an HMAC under RATE_LIMIT_KEY_SECRET: no store holds the number, nor a hash of it anyone can make", async () => {
    const secret = "limit-key-secret-of-32-characters-or-more";
    const phone = uniquePhone();
    const address = freshAddress();
    const keyed = withEnv(
      { DATA_DIR: process.env.DATA_DIR!, REDIS_URL: redis.url, RATE_LIMIT_KEY_SECRET: secret },
      () => readEnv(),
    );
    expect(await connectLimitStore(redis.url, keyed.REDIS_COMMAND_TIMEOUT_MS)).toBe(true);
    expect(await checkLimits({ formName: "waitlist", address, phone, email: "Chef@Example.com" }, keyed)).toMatchObject(
      { ok: true },
    );
    const keys = await redis.client.keys("rl:*");
    expect(
      keys.filter((key) => key.includes(phone.slice(2)) || key.includes(address) || /chef@/i.test(key)),
    ).toStrictEqual([]);
    expect(await redis.client.get(`rl:phone:${hmacKey(secret, phone)}`)).toBe("1");
    expect(await redis.client.get(`rl:email:waitlist:${hmacKey(secret, "chef@example.com")}`)).toBe("1");
    expect(await redis.client.get(`rl:address:waitlist:${hmacKey(secret, address)}`)).toBe("1");
    // The same person is the same key under the same secret: a second post counts against the first.
    expect(await checkLimits({ formName: "waitlist", address, phone }, keyed)).toMatchObject({ ok: true });
    expect(await redis.client.get(`rl:phone:${hmacKey(secret, phone)}`)).toBe("2");

    // Without Redis the per-number count is a row of limit_counts: not the unkeyed hash anyone could compute.
    const inDatabase = withEnv({ DATA_DIR: process.env.DATA_DIR!, RATE_LIMIT_KEY_SECRET: secret }, () => readEnv());
    const other = uniquePhone();
    await checkLimits({ formName: "waitlist", address: freshAddress(), phone: other }, inDatabase);
    const store = await database(inDatabase);
    const rows = (await store.db.selectFrom("limit_counts").select("key").execute()).map((row) => row.key);
    const { RATE_LIMIT_PHONE_POINTS: points, RATE_LIMIT_PHONE_WINDOW_SECONDS: seconds } = inDatabase;
    const unkeyed = (value: string) =>
      createHash("sha256").update(`phone\n${points}\n${seconds}\n${value}`).digest("hex");
    expect(rows).not.toContain(unkeyed(other));
    expect(rows).toContain(unkeyed(hmacKey(secret, other)));
  });

  it("with no RATE_LIMIT_KEY_SECRET, keys every count under the site's own random key, kept in the database: still no store holds a number, an email or an address", async () => {
    const env = withEnv({ DATA_DIR: process.env.DATA_DIR!, REDIS_URL: redis.url }, () => readEnv());
    expect(env.RATE_LIMIT_KEY_SECRET).toBeUndefined();
    expect(await connectLimitStore(redis.url, env.REDIS_COMMAND_TIMEOUT_MS)).toBe(true);
    const [phone, address] = [uniquePhone(), freshAddress()];
    expect(await checkLimits({ formName: "waitlist", address, phone, email: "Chef@Example.com" }, env)).toMatchObject({
      ok: true,
    });
    const store = await database(env);
    const made = await store.db.selectFrom("limit_keys").selectAll().execute();
    expect(made).toStrictEqual([
      { name: "person", secret: expect.stringMatching(/^[\w-]{43}$/), created_at: expect.any(Number) },
    ]);
    const site = made[0]!.secret;
    // Every key Redis holds is the HMAC under that key; none names the number, the email or the address.
    const keys = await redis.client.keys("rl:*");
    expect(
      keys.filter((key) => key.includes(phone.slice(2)) || key.includes(address) || /chef@/i.test(key)),
    ).toStrictEqual([]);
    expect(await redis.client.get(`rl:phone:${hmacKey(site, phone)}`)).toBe("1");
    expect(await redis.client.get(`rl:email:waitlist:${hmacKey(site, "chef@example.com")}`)).toBe("1");
    expect(await redis.client.get(`rl:address:waitlist:${hmacKey(site, address)}`)).toBe("1");
    // Another instance (its process-wide cache empty) reads the same key: the same person is the same count.
    processWide("rate-limits", () => ({}) as { siteKeys: Map<string, unknown> }).siteKeys.clear();
    expect(await checkLimits({ formName: "waitlist", address: freshAddress(), phone }, env)).toMatchObject({
      ok: true,
    });
    expect(await redis.client.get(`rl:phone:${hmacKey(site, phone)}`)).toBe("2");
    expect(await store.db.selectFrom("limit_keys").selectAll().execute()).toStrictEqual(made);
    // Without Redis, limit_counts holds the keyed hash, never the unkeyed one anyone could compute.
    const inDatabase = withEnv({ DATA_DIR: process.env.DATA_DIR! }, () => readEnv());
    const other = uniquePhone();
    await checkLimits({ formName: "waitlist", address: freshAddress(), phone: other }, inDatabase);
    const rows = (await store.db.selectFrom("limit_counts").select("key").execute()).map((row) => row.key);
    const { RATE_LIMIT_PHONE_POINTS: points, RATE_LIMIT_PHONE_WINDOW_SECONDS: seconds } = inDatabase;
    const unkeyed = (value: string) =>
      createHash("sha256").update(`phone\n${points}\n${seconds}\n${value}`).digest("hex");
    expect(rows).not.toContain(unkeyed(other));
    expect(rows).toContain(unkeyed(hmacKey(site, other)));
  });

  it("counts under a key of this process alone while the database cannot give the site's, says so, and asks it again next time", async () => {
    // A DATA_DIR where no database can be made: a file stands where its folder should be.
    const parent = await mkdtemp(path.join(tmpdir(), "sous-limit-key-down-"));
    const dataDir = path.join(parent, "data");
    await writeFile(dataDir, "not a folder");
    try {
      const env = withEnv({ DATA_DIR: dataDir, REDIS_URL: redis.url }, () => readEnv());
      expect(await connectLimitStore(redis.url, env.REDIS_COMMAND_TIMEOUT_MS)).toBe(true);
      const phone = uniquePhone();
      expect(await checkLimits({ formName: "waitlist", address: freshAddress(), phone }, env)).toMatchObject({
        ok: true,
      });
      expect(logged("limit_key_unread")).toEqual([
        expect.objectContaining({ level: "warn", message: expect.any(String) }),
      ]);
      // Still no number in any key: counted under the process's own key.
      const { processKey } = processWide("rate-limits", () => ({}) as { processKey: string });
      expect((await redis.client.keys("rl:phone:*")).filter((key) => key.includes(phone.slice(2)))).toStrictEqual([]);
      expect(await redis.client.get(`rl:phone:${hmacKey(processKey, phone)}`)).toBe("1");
      // The database back: the next count reads the site's key from it, not the failure.
      await rm(dataDir);
      await mkdir(dataDir);
      expect(await checkLimits({ formName: "waitlist", address: freshAddress(), phone }, env)).toMatchObject({
        ok: true,
      });
      const { secret } = await (
        await database(env)
      ).db
        .selectFrom("limit_keys")
        .select("secret")
        .executeTakeFirstOrThrow();
      expect(await redis.client.get(`rl:phone:${hmacKey(secret, phone)}`)).toBe("1");
      expect(logged("limit_key_unread")).toHaveLength(1);
    } finally {
      await closeDatabases();
      await rm(parent, { recursive: true, force: true });
    }
  });

  it("keeps the counts in Redis, one key per rule and subject, where every instance sees them", async () => {
    const env = withEnv({ DATA_DIR: process.env.DATA_DIR!, REDIS_URL: redis.url, RATE_LIMIT_FORM_POINTS: "2" }, () =>
      readEnv(),
    );
    expect(await connectLimitStore(redis.url, env.REDIS_COMMAND_TIMEOUT_MS)).toBe(true);
    const address = freshAddress();
    for (let i = 0; i < 2; i += 1)
      expect(await checkLimits({ formName: "waitlist", address, phone: uniquePhone() }, env)).toMatchObject({
        ok: true,
      });

    // Keyed under the site's own key: no RATE_LIMIT_KEY_SECRET here.
    const { secret: site } = await (
      await database(env)
    ).db
      .selectFrom("limit_keys")
      .select("secret")
      .executeTakeFirstOrThrow();
    const addressKey = `rl:address:waitlist:${hmacKey(site, address)}`;
    expect(await redis.client.get(addressKey)).toBe("2");
    expect(await checkLimits({ formName: "waitlist", address, phone: uniquePhone() }, env)).toMatchObject({
      ok: false,
      limiter: "address",
    });

    // What another instance does to the count, this one sees.
    await redis.client.del(addressKey);
    expect(await checkLimits({ formName: "waitlist", address, phone: uniquePhone() }, env)).toMatchObject({ ok: true });
  });

  it("counts in memory while Redis stalls, saying so once, and once when it is back", async () => {
    const env = withEnv(
      {
        DATA_DIR: process.env.DATA_DIR!,
        REDIS_URL: redis.url,
        REDIS_COMMAND_TIMEOUT_MS: "50",
        RATE_LIMIT_FORM_POINTS: "2",
      },
      () => readEnv(),
    );
    expect(await connectLimitStore(redis.url, env.REDIS_COMMAND_TIMEOUT_MS)).toBe(true);
    const address = freshAddress();
    redis.child.kill("SIGSTOP");
    try {
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await checkLimits({ formName: "contact", address }, env));
      // Memory counts too: the third post from the address is refused.
      expect(answers.map((answer) => answer.ok)).toStrictEqual([true, true, false]);
      expect(logged("redis_unavailable")).toHaveLength(1);
      expect(logged("redis_recovered")).toHaveLength(0);
    } finally {
      redis.child.kill("SIGCONT");
    }
    await vi.waitFor(async () => {
      await checkLimits({ formName: "contact", address: freshAddress() }, env);
      expect(logged("redis_recovered")).toHaveLength(1);
    });
  });
});

describe("connectLimitStore", () => {
  it("says false when no Redis answers in time", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    expect(await connectLimitStore(url, 50, 200)).toBe(false);
  });
});
