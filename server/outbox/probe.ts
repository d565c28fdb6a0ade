import "server-only";
import { logEvent } from "@/server/log";

/** A receiver probed, and what became of its probe. */
export type Probed = { form: string; state: string };

/**
 * Where every instance reads which receivers fail, and takes the right to
 * probe one (the alerts' store keeps the `receivers` table: the caller
 * passes its two queries in, so this floor imports nothing above it).
 */
export type FailingReceivers = {
  /** The receivers failing now, as every instance sees them. */
  failing(): Promise<readonly { form: string }[]>;
  /** True for one instance once the interval passed since the receiver began failing or was last probed. */
  claim(form: string, now: number): Promise<boolean>;
};

/**
 * One kind of delivery's part in the probe (leads, invitations): which
 * failing receivers are its to probe, and how it sends the one row a probe
 * takes, ahead of that row's schedule.
 */
export type ProbeKind = {
  /** Whether a failing receiver is this kind's, and may be sent to now (its URL set). */
  owns(receiver: string): boolean;
  /**
   * Sends the row of `receiver` that is due first, keeping its place and its
   * rounds if it fails; answered, the kind makes everything waiting on that
   * receiver due now, for the pass that follows. Undefined: nothing to send,
   * and nothing to say of it.
   */
  probe(receiver: string): Promise<{ state: string; answered: boolean } | undefined>;
};

/**
 * While a receiver fails, what waits for it waits for its schedule, which
 * after a few failed rounds puts the next attempt half an hour to hours away,
 * however soon the receiver is back. So every REDELIVERY_PROBE_SECONDS, on
 * one instance (the claim), each failing receiver of `kind` is sent one row
 * ahead of its schedule, and the probe's outcome is logged
 * (`receiver_probed`). Returns the receivers probed, and what became of each.
 */
export async function probeFailingReceivers(receivers: FailingReceivers, kind: ProbeKind): Promise<Probed[]> {
  const probed: Probed[] = [];
  for (const { form } of await receivers.failing()) {
    if (!kind.owns(form)) continue;
    if (!(await receivers.claim(form, Date.now()))) continue;
    const outcome = await kind.probe(form);
    if (!outcome) continue;
    logEvent(outcome.answered ? "info" : "warn", { event: "receiver_probed", form, outcome: outcome.state });
    probed.push({ form, state: outcome.state });
  }
  return probed;
}
