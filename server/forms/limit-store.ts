import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { RateLimiterRes } from "rate-limiter-flexible";
import type { Store } from "@/server/db/connect";
import type { Database } from "@/server/db/schema";

/** The tables this file owns: the only file whose SQL names them (server/db/table-owners.test.ts). */
export const ownedTables = ["limit_counts", "limit_keys"] as const satisfies readonly (keyof Database)[];

/**
 * The key named `name` (the person key of the rate limits), made here at
 * random the first time any instance asks, and the same for every instance
 * after: the first insert wins, the others read what it wrote.
 */
export async function limitKey({ db }: Store, name: string) {
  const now = Date.now();
  await db
    .insertInto("limit_keys")
    .values({ name, secret: randomBytes(32).toString("base64url"), created_at: now })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .execute();
  const { secret } = await db
    .selectFrom("limit_keys")
    .select("secret")
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return secret;
}

/** A limit's window: how many points, over how many seconds. */
export type Window = { name: string; points: number; duration: number };

/** The row's key: a hash of the limiter and what it counts, so the table never holds a number or an address. */
const rowKey = (window: Window, key: string) =>
  createHash("sha256").update(`${window.name}\n${window.points}\n${window.duration}\n${key}`).digest("hex");

/**
 * Counts one point against `key` in the database, in one statement: a new
 * window when the last one ran out. Resolves like rate-limiter-flexible's
 * consume (a RateLimiterRes), and rejects with one when the window is full.
 */
export async function consumeInDatabase({ db }: Store, window: Window, key: string) {
  const now = Date.now();
  const expires = now + window.duration * 1000;
  const row = await db
    .insertInto("limit_counts")
    .values({ key: rowKey(window, key), points: 1, expires_at: expires })
    .onConflict((conflict) =>
      conflict.column("key").doUpdateSet((eb) => ({
        points: eb
          .case()
          .when("limit_counts.expires_at", "<=", now)
          .then(1)
          .else(eb("limit_counts.points", "+", 1))
          .end(),
        expires_at: eb
          .case()
          .when("limit_counts.expires_at", "<=", now)
          .then(expires)
          .else(eb.ref("limit_counts.expires_at"))
          .end(),
      })),
    )
    .returning(["points", "expires_at"])
    .executeTakeFirstOrThrow();
  const points = Number(row.points);
  const result = new RateLimiterRes(
    Math.max(0, window.points - points),
    Math.max(0, Number(row.expires_at) - now),
    points,
  );
  if (points > window.points) throw result;
  return result;
}

/** Gives one point back to `key`, within its window. */
export async function rewardInDatabase({ db }: Store, window: Window, key: string) {
  const now = Date.now();
  await db
    .updateTable("limit_counts")
    .set((eb) => ({ points: eb("points", "-", 1) }))
    .where("key", "=", rowKey(window, key))
    .where("expires_at", ">", now)
    .where("points", ">", 0)
    .execute();
}

/** Retention: the windows that ran out. */
export async function forgetSpentWindows({ db }: Store, now: number) {
  const { numDeletedRows } = await db.deleteFrom("limit_counts").where("expires_at", "<=", now).executeTakeFirst();
  return Number(numDeletedRows);
}
