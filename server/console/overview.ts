import "server-only";
import type { Store } from "@/server/db/connect";
import { signedUpCounts } from "@/server/consent/consent-store";
import { invitationCounts } from "@/server/invitations/invitation-store";
import { formNames } from "@/lib/forms";
import { openCounts } from "@/server/outbox/outbox-store";

// Every zone's offset is a whole number of quarter hours: a bucket of one falls on one local day.
const QUARTER_HOUR_MS = 15 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

/** A time's calendar day in `zone`, YYYY-MM-DD. */
const dayIn = (zone: string) => {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  return (at: number) => format.format(at);
};

/** The last `days` calendar days in `zone`, today included, oldest first, each with the counts of the times on it. */
export function perDay(
  firstTimes: Iterable<{ at: number; count: number }>,
  { days, now, zone }: { days: number; now: number; zone: string },
) {
  const dayOf = dayIn(zone);
  const [year, month, date] = dayOf(now).split("-").map(Number) as [number, number, number];
  const counts = Array.from({ length: days }, (_, index) => ({
    day: new Date(Date.UTC(year, month - 1, date - days + 1 + index)).toISOString().slice(0, 10),
    count: 0,
  }));
  const indexOf = new Map(counts.map(({ day }, index) => [day, index]));
  for (const { at, count } of firstTimes) {
    const index = indexOf.get(dayOf(at));
    if (index !== undefined) counts[index]!.count += count;
  }
  return counts;
}

/** Today, this week (from Monday) and last week, each beside the same span before it: from 21 days or more. */
export function growth(days: readonly { day: string; count: number }[]) {
  const today = days.length - 1;
  const monday = today - ((new Date(`${days[today]!.day}T00:00:00Z`).getUTCDay() + 6) % 7);
  const sum = (from: number, to: number) => days.slice(from, to + 1).reduce((total, { count }) => total + count, 0);
  return {
    today: { count: sum(today, today), before: sum(today - 1, today - 1) },
    thisWeek: { count: sum(monday, today), before: sum(monday - 7, today - 7) },
    lastWeek: { count: sum(monday - 7, monday - 1), before: sum(monday - 14, monday - 8) },
  };
}

const DAYS = 90;

/**
 * The console's overview: how many numbers signed up on the waitlist and where their consent stands, what the launch
 * invited and texted, sign-ups per day in `zone` for the last 90 days (each number on its first sign-up's day), and the
 * leads waiting per form. Counts only: no number leaves this function.
 */
export async function overview(store: Store, zone: string) {
  const now = Date.now();
  const [signedUp, invitations, waiting] = await Promise.all([
    // A day more than shown: the first local day may begin before its UTC one.
    signedUpCounts(store, { since: now - (DAYS + 1) * DAY_MS, bucketMs: QUARTER_HOUR_MS }),
    invitationCounts(store),
    openCounts(store),
  ]);
  const { states } = signedUp;
  const signups = perDay(signedUp.times, { days: DAYS, now, zone });
  const invitationsIn = (wanted: readonly string[]) =>
    invitations.states.filter((row) => wanted.includes(row.state)).reduce((sum, row) => sum + row.count, 0);
  return {
    onList: states["in force"] + states.revoked + states.none,
    inForce: states["in force"],
    revoked: states.revoked,
    invited: invitationsIn(["queued", "waiting", "texted", "refused", "failed"]),
    texted: invitationsIn(["texted"]),
    signups,
    growth: growth(signups),
    waiting: formNames.flatMap((form) => {
      const of = waiting.get(form);
      if (!of) return [];
      // A pending lead waits for a redelivery or for a slot of the texts budget: told apart.
      const counts = {
        pending: of.pending.count - of.budget.count,
        "for the texts budget": of.budget.count,
        held: of.held.count,
        dead: of.dead.count,
        "for your decision": of.decision.count,
      };
      return Object.entries(counts).flatMap(([state, count]) => (count ? [{ form, state, count }] : []));
    }),
  };
}
