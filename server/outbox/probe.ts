import "server-only";
import { logEvent } from "@/server/log";

export type Probed = { form: string; state: string };

/** The caller passes the alerts' two queries in, so this floor imports nothing above it. */
export type FailingReceivers = {
  failing(): Promise<readonly { form: string }[]>;
  claim(form: string, now: number): Promise<boolean>;
};

export type ProbeKind = {
  /** Its URL set, too. */
  owns(receiver: string): boolean;
  /** Sends the receiver's first row ahead of its schedule, keeping its place if it fails; answered, what waits is due now. */
  probe(receiver: string): Promise<{ state: string; answered: boolean } | undefined>;
};

/**
 * After a few failed rounds the next attempt is hours away, however soon the receiver is back: so every
 * REDELIVERY_PROBE_SECONDS one instance sends each failing receiver one row ahead of its schedule.
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
