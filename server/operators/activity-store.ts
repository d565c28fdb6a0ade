import "server-only";
import { randomUUID } from "node:crypto";
import type { Store } from "@/server/db/connect";
import type { Database } from "@/server/db/schema";
import { processWide } from "@/server/process-wide";

/** The tables this file owns: the only file whose SQL names them (server/db/table-owners.test.ts). */
export const ownedTables = ["operator_activity"] as const satisfies readonly (keyof Database)[];

/** What the activity log records: each an operator's action, by the console or a command. */
export const activityActions = [
  "sign-in",
  "sign-out",
  "enrolled",
  "passkey added",
  "passkey removed",
  "sessions ended",
  "export",
  "redeliver",
  "drop",
  "handled",
  "revocation recorded",
  "wave sent",
  "wave cancelled",
  "operator added",
  "operator removed",
  "link issued",
  "role changed",
] as const;
export type ActivityAction = (typeof activityActions)[number];

/**
 * One action. `actor` is an operator's email, or "command" for an `npm run` command on the server; `subject` is what it
 * was done to when that is not personal (a wave's name, a lead's webhook-id, an operator's email, an export's kind):
 * never a phone, a name or a message.
 */
export type Activity = {
  actor: string;
  via: "console" | "command";
  action: ActivityAction;
  subject?: string | null;
  rows?: number | null;
};

// Lines of one millisecond keep the order they were written in (the page breaks a tie by the id): each id starts with
// this process's count of the lines it wrote, fixed-width so that the ids sort as the count does.
const written = processWide("activity-lines", () => ({ count: 0 }));

export async function insertActivity({ db }: Store, activity: Activity) {
  written.count += 1;
  await db
    .insertInto("operator_activity")
    .values({
      id: `act_${written.count.toString(36).padStart(8, "0")}_${randomUUID()}`,
      at: Date.now(),
      actor: activity.actor,
      via: activity.via,
      action: activity.action,
      subject: activity.subject ?? null,
      rows: activity.rows ?? null,
    })
    .execute();
}

/** Where a page of the log ends: its last line's time and id. The next page starts after it, lines of the same millisecond included. */
export type ActivityCursor = { at: number; id: string };

/** A page of the log, newest first (the id breaking a tie): `limit` lines after `after` (from the newest when unset). */
export async function activityPage({ db }: Store, { after, limit }: { after?: ActivityCursor; limit: number }) {
  const rows = await db
    .selectFrom("operator_activity")
    .selectAll()
    .$if(after !== undefined, (query) =>
      query.where((eb) =>
        eb.or([eb("at", "<", after!.at), eb.and([eb("at", "=", after!.at), eb("id", "<", after!.id)])]),
      ),
    )
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    at: Number(row.at),
    actor: row.actor,
    via: row.via,
    action: row.action as ActivityAction,
    subject: row.subject,
    rows: row.rows === null ? null : Number(row.rows),
  }));
}

/**
 * What this operator last did in the console, if it was `action` (on `subject`) in the last five minutes: a page's
 * banner reports it from here, never from its URL, so a link can announce nothing that did not happen.
 */
export async function justDid(
  { db }: Store,
  { actor, action, subject }: { actor: string; action: ActivityAction; subject?: string },
) {
  const last = await db
    .selectFrom("operator_activity")
    .select(["action", "subject", "rows"])
    .where("actor", "=", actor)
    .where("via", "=", "console")
    .where("at", ">", Date.now() - 5 * 60_000)
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .executeTakeFirst();
  if (last?.action !== action || (subject !== undefined && last.subject !== subject)) return undefined;
  return { rows: Number(last.rows ?? 0), subject: last.subject };
}

/** A cursor as the page's "Older" link carries it (`AT~ID`), read back; undefined for anything else. */
export function cursorOf(text: unknown): ActivityCursor | undefined {
  const match = typeof text === "string" ? /^(\d{1,16})~([\w-]{1,80})$/.exec(text) : null;
  return match ? { at: Number(match[1]), id: match[2]! } : undefined;
}

/** Retention: what is older than AUDIT_RETENTION_DAYS. */
export async function forgetActivity({ db }: Store, before: number) {
  const { numDeletedRows } = await db.deleteFrom("operator_activity").where("at", "<", before).executeTakeFirst();
  return Number(numDeletedRows);
}

/** When an owner marked each of these quote requests handled (their webhook-ids). */
export async function handledAmong({ db }: Store, ids: readonly string[]) {
  if (!ids.length) return new Map<string, number>();
  const rows = await db
    .selectFrom("operator_activity")
    .select(["subject", "at"])
    .where("action", "=", "handled")
    .where("subject", "in", ids)
    .execute();
  return new Map(rows.map((row) => [row.subject ?? "", Number(row.at)]));
}
