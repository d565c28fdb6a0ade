import { expect, vi } from "vitest";
import { database } from "@/server/db/connect";
import { listLeads } from "@/server/outbox/outbox-store";
import { readEnv } from "@/server/env";

/**
 * The environment of a form action's unit test: the form's webhook pointed at
 * the test's receiver, short attempts and quick retries so failures are
 * quick, and the log lines kept out of the test output (a test that reads
 * them spies on console itself). The deadline is far above what three
 * attempts take, so how many are made never depends on the machine's speed;
 * the deadline's own rules are tested on a virtual clock (send.test.ts).
 */
export function stubActionEnv(webhookVariable: string, webhookUrl: string) {
  vi.stubEnv(webhookVariable, webhookUrl);
  vi.stubEnv("WEBHOOK_DEADLINE_MS", "5000");
  vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "150");
  vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
  vi.spyOn(console, "info").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
}

/** The leads of a form the database holds as held (its webhook URL was unset), oldest first. */
export async function heldLeads(form: string) {
  return listLeads(await database(readEnv()), { states: ["held"], form });
}

/**
 * Runs `send` and checks that the receiver got nothing meanwhile; then runs
 * `control`, the same setup with good input, and checks that it got exactly
 * that one, so a receiver that was never reachable fails the test. Resolves
 * to `send`'s answer.
 */
export async function withoutDelivery<T>(
  receiver: { received: readonly unknown[] },
  send: () => Promise<T>,
  control: () => Promise<unknown>,
) {
  const before = receiver.received.length;
  const answer = await send();
  expect(receiver.received.length).toBe(before);
  await control();
  expect(receiver.received.length).toBe(before + 1);
  return answer;
}

/**
 * Forgets every sign-up the test file's database holds, its consent records
 * and the limits' counts: for tests that post one number again and again, as
 * first sign-ups. (A number on the list already is welcomed once.)
 */
export async function forgetSignups() {
  const { db } = await database(readEnv());
  for (const table of [
    "consents",
    "consent_revocations",
    "consent_renewals",
    "consent_messages",
    "outbox_attempts",
    "outbox",
    "limit_counts",
  ] as const)
    await db.deleteFrom(table).execute();
}
