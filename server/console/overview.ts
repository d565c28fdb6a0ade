import "server-only";
import type { Store } from "@/server/db/connect";
import { signedUpCounts } from "@/server/consent/consent-store";
import { invitationCounts } from "@/server/invitations/invitation-store";
import { formNames } from "@/lib/forms";
import { openCounts } from "@/server/outbox/outbox-store";

const DAY_MS = 24 * 60 * 60_000;

/** Sign-ups per UTC day for the last `days` days, oldest first: each time counted `count` times on its UTC day. */
export function perDay(
  firstTimes: Iterable<{ at: number; count: number }>,
  { days, now }: { days: number; now: number },
) {
  const today = Math.floor(now / DAY_MS);
  const counts = Array.from({ length: days }, (_, index) => ({
    day: new Date((today - days + 1 + index) * DAY_MS).toISOString().slice(0, 10),
    count: 0,
  }));
  for (const { at, count } of firstTimes) {
    const index = Math.floor(at / DAY_MS) - (today - days + 1);
    if (index >= 0 && index < days) counts[index]!.count += count;
  }
  return counts;
}

const DAYS = 90;

/**
 * The console's overview: how many numbers signed up on the waitlist and
 * where their consent stands, what the launch invited and texted, sign-ups per
 * day for the last 90 days (each number on its first sign-up's day), and the
 * leads waiting per form. Counts only: no number leaves this function.
 */
export async function overview(store: Store) {
  const now = Date.now();
  const [signedUp, invitations, waiting] = await Promise.all([
    signedUpCounts(store, { since: (Math.floor(now / DAY_MS) - DAYS + 1) * DAY_MS, dayMs: DAY_MS }),
    invitationCounts(store),
    openCounts(store),
  ]);
  const { states } = signedUp;
  const invitationsIn = (wanted: readonly string[]) =>
    invitations.states.filter((row) => wanted.includes(row.state)).reduce((sum, row) => sum + row.count, 0);
  return {
    onList: states["in force"] + states.revoked + states.none,
    inForce: states["in force"],
    revoked: states.revoked,
    invited: invitationsIn(["queued", "waiting", "texted", "refused", "failed"]),
    texted: invitationsIn(["texted"]),
    signups: perDay(signedUp.days, { days: DAYS, now }),
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
