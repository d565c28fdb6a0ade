import { beforeEach, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { leadById } from "@/server/outbox/outbox-store";
import { submitLead } from "@/server/forms/submit-lead";
import type { ConsentEvidence } from "@/server/consent/consent-store";
import type { FormName } from "@/lib/forms";
import { setupWebhookReceiver } from "./setup-webhook-receiver";
import { newWebhookSecret } from "./webhook-secrets";

/**
 * A checked post handed to submitLead as the form's action hands it: the
 * environment as it is now, the visitor's wait starting now (or `started`),
 * the operator's alerts listening.
 */
export function submitted(
  form: FormName,
  payload: Record<string, unknown>,
  { consent, started = performance.now() }: { consent?: ConsentEvidence; started?: number } = {},
) {
  return submitLead({ form, payload, env: readEnv(), started, consent });
}

/** Makes a kept lead due now, as if its schedule's wait were over. */
export async function makeDue(id: string) {
  await (await database(readEnv())).db.updateTable("outbox").set({ next_attempt_at: 0 }).where("id", "=", id).execute();
}

/**
 * For a test file that sends waitlist leads to a real receiver: signed, quick
 * retries, a schedule of two 1 s rounds, the log captured, and an empty leads
 * table before each test (a pass takes everything due). Call it once, at the
 * top of the file.
 */
export function setupLeadSending() {
  const receiver = setupWebhookReceiver();
  const store = () => database(readEnv());
  let counter = 0;

  beforeEach(async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1,1");
    for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
    await (await store()).db.deleteFrom("outbox").execute();
  });

  return {
    receiver,
    store,
    /** A waitlist body whose name tells the receiver how to answer, e.g. [fail=3]. */
    payload(directive = "") {
      counter += 1;
      return { phone: "+15551234567", name: `Ada r${counter}x${Date.now()} ${directive}`.trim() };
    },
    /** The visitor's submission of a body, its wait starting now. */
    send: (body: Record<string, unknown>) => submitted("waitlist", body),
    row: async (id: string) => leadById(await store(), id),
    /** The log lines of one event, parsed. */
    logged: (event: string) =>
      (["info", "warn", "error"] as const)
        .flatMap((method) => vi.mocked(console[method]).mock.calls)
        .map((call) => JSON.parse(String(call[0])))
        .filter((line) => line.event === event),
  };
}
