import "server-only";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Store } from "@/server/db/connect";
import type { ChallengePurpose, Database, OperatorRole } from "@/server/db/schema";

export const ownedTables = [
  "operators",
  "operator_passkeys",
  "operator_sessions",
  "operator_links",
  "console_challenges",
] as const satisfies readonly (keyof Database)[];

export const LINK_TTL_MS = 15 * 60_000;
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
export const CHALLENGE_TTL_MS = 5 * 60_000;
// A page of the console is not a write.
const SEEN_EVERY_MS = 60_000;

/** 256 bits; the database keeps only its SHA-256. */
export const newToken = () => randomBytes(32).toString("base64url");
export const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export type Operator = { id: string; email: string; role: OperatorRole; createdAt: number };

type OperatorRow = Database["operators"] extends infer T ? { [K in keyof T]: T[K] } : never;
const operatorOf = (row: Pick<OperatorRow, "id" | "email" | "role" | "created_at">): Operator => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: Number(row.created_at),
});

const operatorColumns = ["operators.id", "operators.email", "operators.role", "operators.created_at"] as const;

export const emailKey = (email: string) => email.trim().toLowerCase();

export async function insertOperator(
  { db }: Store,
  { email, role, id = `op_${randomUUID()}` }: { email: string; role: OperatorRole; id?: string },
): Promise<Operator | undefined> {
  const row = { id, email: emailKey(email), role, created_at: Date.now() };
  const inserted = await db
    .insertInto("operators")
    .values(row)
    .onConflict((conflict) => conflict.column("email").doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0 ? operatorOf(row) : undefined;
}

export async function operatorByEmail({ db }: Store, email: string) {
  const row = await db.selectFrom("operators").selectAll().where("email", "=", emailKey(email)).executeTakeFirst();
  return row && operatorOf(row);
}

export async function operatorById({ db }: Store, id: string) {
  const row = await db.selectFrom("operators").selectAll().where("id", "=", id).executeTakeFirst();
  return row && operatorOf(row);
}

/** The zone an operator chose for the console's days and weeks; undefined: the business's. */
export async function timeZoneOf({ db }: Store, operatorId: string) {
  const row = await db.selectFrom("operators").select("time_zone").where("id", "=", operatorId).executeTakeFirst();
  return row?.time_zone ?? undefined;
}

export async function setTimeZone({ db }: Store, operatorId: string, zone: string) {
  await db.updateTable("operators").set({ time_zone: zone }).where("id", "=", operatorId).execute();
}

export async function listOperators({ db }: Store) {
  const rows = await db
    .selectFrom("operators")
    .leftJoin("operator_passkeys", "operator_passkeys.operator_id", "operators.id")
    .select(operatorColumns)
    .select((eb) => eb.fn.count<number>("operator_passkeys.id").as("passkeys"))
    .groupBy(operatorColumns)
    .orderBy("operators.created_at")
    .orderBy("operators.email")
    .execute();
  return rows.map((row) => ({ ...operatorOf(row), passkeys: Number(row.passkeys) }));
}

export async function ownerExists({ db }: Store) {
  const row = await db.selectFrom("operators").select("id").where("role", "=", "owner").executeTakeFirst();
  return row !== undefined;
}

/** The keys cascade: their passkeys, sessions, links and ceremonies go too. */
export async function setRole({ db }: Store, id: string, role: OperatorRole) {
  await db.updateTable("operators").set({ role }).where("id", "=", id).execute();
}

export async function deleteOperator({ db }: Store, id: string) {
  const { numDeletedRows } = await db.deleteFrom("operators").where("id", "=", id).executeTakeFirst();
  return Number(numDeletedRows) > 0;
}

async function insertSecret(
  { db }: Store,
  table: "operator_links" | "operator_sessions",
  { operatorId, now, lifetime, passkeyId }: { operatorId: string; now: number; lifetime: number; passkeyId?: string },
) {
  const token = newToken();
  const row = { id: hashOf(token), operator_id: operatorId, created_at: now, expires_at: now + lifetime };
  if (table === "operator_sessions")
    await db
      .insertInto("operator_sessions")
      .values({ ...row, seen_at: now, passkey_id: passkeyId ?? null })
      .execute();
  else await db.insertInto("operator_links").values(row).execute();
  return token;
}

export async function insertLink(store: Store, { operatorId }: { operatorId: string }) {
  const now = Date.now();
  const token = await insertSecret(store, "operator_links", { operatorId, now, lifetime: LINK_TTL_MS });
  return { token, expiresAt: now + LINK_TTL_MS };
}

export async function linkOperator({ db }: Store, token: string) {
  const now = Date.now();
  const row = await db
    .selectFrom("operator_links")
    .innerJoin("operators", "operators.id", "operator_links.operator_id")
    .select(["operator_links.id as linkId", ...operatorColumns])
    .where("operator_links.id", "=", hashOf(token))
    .where("operator_links.used_at", "is", null)
    .where("operator_links.expires_at", ">", now)
    .executeTakeFirst();
  return row && { linkId: row.linkId, operator: operatorOf(row) };
}

/** False when another request used it first. */
export async function useLink({ db }: Store, linkId: string) {
  const now = Date.now();
  const { numUpdatedRows } = await db
    .updateTable("operator_links")
    .set({ used_at: now })
    .where("id", "=", linkId)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(numUpdatedRows) > 0;
}

export async function insertChallenge(
  { db }: Store,
  {
    challenge,
    purpose,
    operatorId = null,
    linkId = null,
  }: { challenge: string; purpose: ChallengePurpose; operatorId?: string | null; linkId?: string | null },
) {
  const id = newToken();
  await db
    .insertInto("console_challenges")
    .values({
      id: hashOf(id),
      challenge,
      purpose,
      operator_id: operatorId,
      link_id: linkId,
      expires_at: Date.now() + CHALLENGE_TTL_MS,
    })
    .execute();
  return id;
}

/** Deleted as it is read, so it answers once. */
export async function takeChallenge({ db }: Store, id: string, purpose: ChallengePurpose) {
  const now = Date.now();
  const row = await db
    .deleteFrom("console_challenges")
    .where("id", "=", hashOf(id))
    .returning(["challenge", "purpose", "operator_id", "link_id", "expires_at"])
    .executeTakeFirst();
  if (!row || row.purpose !== purpose || Number(row.expires_at) <= now) return undefined;
  return { challenge: row.challenge, operatorId: row.operator_id, linkId: row.link_id };
}

export type Passkey = {
  id: string;
  operatorId: string;
  publicKey: string;
  counter: number;
  transports: string[];
};

/** `name`: the device it is on; `used`: it opens a session at once (an enrolment), so its last use is now. */
export async function insertPasskey(
  { db }: Store,
  { passkey, name = null, used = false }: { passkey: Passkey; name?: string | null; used?: boolean },
) {
  // Two passkeys of one operator's same browser are told apart: "Chrome on Linux (2)".
  const names = await db
    .selectFrom("operator_passkeys")
    .select("name")
    .where("operator_id", "=", passkey.operatorId)
    .execute();
  const taken = new Set(names.map((row) => row.name));
  let unique = name;
  for (let count = 2; unique !== null && taken.has(unique); count++) unique = `${name} (${count})`;
  const now = Date.now();
  await db
    .insertInto("operator_passkeys")
    .values({
      id: passkey.id,
      operator_id: passkey.operatorId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: JSON.stringify(passkey.transports),
      created_at: now,
      used_at: used ? now : null,
      name: unique,
    })
    .execute();
}

/** Only its own operator's: false for another's id, or none. */
export async function renamePasskey({ db }: Store, passkey: { id: string; name: string; operatorId: string }) {
  const { numUpdatedRows } = await db
    .updateTable("operator_passkeys")
    .set({ name: passkey.name })
    .where("id", "=", passkey.id)
    .where("operator_id", "=", passkey.operatorId)
    .executeTakeFirst();
  return Number(numUpdatedRows) > 0;
}

const passkeyOf = (row: {
  id: string;
  operator_id: string;
  public_key: string;
  counter: number;
  transports: string | null;
}): Passkey => ({
  id: row.id,
  operatorId: row.operator_id,
  publicKey: row.public_key,
  counter: Number(row.counter),
  transports: row.transports ? (JSON.parse(row.transports) as string[]) : [],
});

export async function passkeyById({ db }: Store, id: string) {
  const row = await db
    .selectFrom("operator_passkeys")
    .select(["id", "operator_id", "public_key", "counter", "transports"])
    .where("id", "=", id)
    .executeTakeFirst();
  return row && passkeyOf(row);
}

export async function passkeysOf({ db }: Store, operatorId: string) {
  const rows = await db
    .selectFrom("operator_passkeys")
    .select(["id", "operator_id", "public_key", "counter", "transports"])
    .where("operator_id", "=", operatorId)
    .orderBy("created_at")
    .execute();
  return rows.map(passkeyOf);
}

export type ListedPasskey = {
  id: string;
  email: string;
  operatorId: string;
  name: string | null;
  createdAt: number;
  usedAt: number | null;
};

export async function listPasskeys({ db }: Store, { operatorId }: { operatorId?: string } = {}) {
  let query = db
    .selectFrom("operator_passkeys")
    .innerJoin("operators", "operators.id", "operator_passkeys.operator_id")
    .select([
      "operator_passkeys.id",
      "operators.email",
      "operators.id as operatorId",
      "operator_passkeys.name",
      "operator_passkeys.created_at",
      "operator_passkeys.used_at",
    ]);
  if (operatorId) query = query.where("operators.id", "=", operatorId);
  const rows = await query.orderBy("operators.email").orderBy("operator_passkeys.created_at").execute();
  return rows.map((row): ListedPasskey => ({
    id: row.id,
    email: row.email,
    operatorId: row.operatorId,
    name: row.name,
    createdAt: Number(row.created_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  }));
}

export async function deletePasskey({ db }: Store, id: string) {
  await db.deleteFrom("operator_passkeys").where("id", "=", id).execute();
}

export async function passkeyUsed({ db }: Store, { id, counter }: { id: string; counter: number }) {
  await db.updateTable("operator_passkeys").set({ counter, used_at: Date.now() }).where("id", "=", id).execute();
}

export const insertSession = (store: Store, { operatorId, passkeyId }: { operatorId: string; passkeyId?: string }) =>
  insertSecret(store, "operator_sessions", { operatorId, passkeyId, now: Date.now(), lifetime: SESSION_ABSOLUTE_MS });

/** The role is the database's now, never the cookie's; a removed operator has no session. */
export async function sessionOperator({ db }: Store, token: string) {
  const now = Date.now();
  const row = await db
    .selectFrom("operator_sessions")
    .innerJoin("operators", "operators.id", "operator_sessions.operator_id")
    .select(["operator_sessions.id as sessionId", "operator_sessions.seen_at", ...operatorColumns])
    .where("operator_sessions.id", "=", hashOf(token))
    .where("operator_sessions.expires_at", ">", now)
    .where("operator_sessions.seen_at", ">", now - SESSION_IDLE_MS)
    .executeTakeFirst();
  if (!row) return undefined;
  if (now - Number(row.seen_at) >= SEEN_EVERY_MS)
    await db.updateTable("operator_sessions").set({ seen_at: now }).where("id", "=", row.sessionId).execute();
  return operatorOf(row);
}

export async function deleteSession({ db }: Store, token: string) {
  await db.deleteFrom("operator_sessions").where("id", "=", hashOf(token)).execute();
}

export async function labelSession({ db }: Store, token: string, browser: string) {
  await db.updateTable("operator_sessions").set({ browser }).where("id", "=", hashOf(token)).execute();
}

export async function sessionsOf({ db }: Store, operatorId: string, token: string) {
  const now = Date.now();
  const rows = await db
    .selectFrom("operator_sessions")
    .select(["id", "browser", "created_at", "seen_at"])
    .where("operator_id", "=", operatorId)
    .where("expires_at", ">", now)
    .where("seen_at", ">", now - SESSION_IDLE_MS)
    .orderBy("seen_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    browser: row.browser,
    createdAt: Number(row.created_at),
    seenAt: Number(row.seen_at),
    current: row.id === hashOf(token),
  }));
}

export async function deleteSessions(
  { db }: Store,
  { operatorId, ids, except }: { operatorId: string; ids?: readonly string[]; except?: string },
) {
  if (ids?.length === 0) return 0;
  const { numDeletedRows } = await db
    .deleteFrom("operator_sessions")
    .where("operator_id", "=", operatorId)
    .$if(ids !== undefined, (query) => query.where("id", "in", ids!))
    .$if(except !== undefined, (query) => query.where("id", "<>", hashOf(except!)))
    .executeTakeFirst();
  return Number(numDeletedRows);
}

export async function forgetExpiredAccess({ db }: Store, now: number) {
  const sessions = await db
    .deleteFrom("operator_sessions")
    .where((eb) => eb.or([eb("expires_at", "<=", now), eb("seen_at", "<=", now - SESSION_IDLE_MS)]))
    .executeTakeFirst();
  const links = await db.deleteFrom("operator_links").where("expires_at", "<=", now).executeTakeFirst();
  const challenges = await db.deleteFrom("console_challenges").where("expires_at", "<=", now).executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(links.numDeletedRows) + Number(challenges.numDeletedRows);
}
