import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/health/route";
import { alertsSettled, reviewReceivers } from "@/server/outbox/alerts";
import { closeDatabases, database } from "@/server/db/connect";
import { deadLeads, dueNow, redeliveryPass } from "@/server/forms/leads";
import { readEnv } from "@/server/env";
import { startRedisServer } from "@/tests/support/redis-server";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { leadsCommand } from "@/scripts/leads-command";
import { submitted } from "@/tests/support/lead-sending";
import { startInviteReceiver } from "@/tests/support/invite-receiver";
import { webConsent } from "@/tests/support/waitlist-lead";
import { recordConsent } from "@/server/consent/consent-store";
import { newWebhookId, WAITS_FOR_BUDGET } from "@/server/outbox/outbox-store";
import { invitationPass } from "@/server/invitations/invitation-pass";
import { queueWave } from "@/server/invitations/waves";
import { smsTexts } from "@/lib/sms/program";

const workflow = setupWebhookReceiver();
const chat = setupWebhookReceiver();
const token = "health-token-of-32-characters-ab";
let counter = 0;
// The chat receiver keeps every request of the file: a test reads those after its start.
let seen = 0;

beforeEach(async () => {
  vi.stubEnv("WAITLIST_WEBHOOK_URL", `${workflow.url}/hooks/waitlist`);
  vi.stubEnv("ALERT_WEBHOOK_URL", `${chat.url}/hooks/alerts`);
  vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
  vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1");
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
  workflow.outage(undefined);
  chat.outage(undefined);
  // An alert the last test started arrives before this one looks.
  await alertsSettled();
  seen = chat.received.length;
  // Each test starts from an empty database: health looks at every lead.
  const { db } = await database(readEnv());
  for (const table of ["outbox", "alerts", "receivers", "alert_states"] as const) await db.deleteFrom(table).execute();
});

const health = async (authorization?: string) => {
  const response = await GET(
    new Request("http://localhost/api/health", { headers: authorization ? { authorization } : {} }),
  );
  return {
    status: response.status,
    cache: response.headers.get("cache-control"),
    body: (await response.json()) as Record<string, unknown>,
  };
};
const alerts = () =>
  chat.received
    .slice(seen)
    .filter((request) => request.path === "/hooks/alerts")
    .map((request) => request.json as { kind: string; [key: string]: unknown });
const lead = () => {
  counter += 1;
  return { phone: `+1555600${String(counter).padStart(4, "0")}`, name: `Grace Health ${counter}x${Date.now()}` };
};

/** A sign-up the workflow refuses, then the one redelivery its one-step schedule allows: the lead is dead. */
async function leadThatDies() {
  workflow.outage(503);
  const body = lead();
  const first = await submitted("waitlist", body);
  expect(first.ok).toBe(false);
  await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });
  await alertsSettled();
  return body;
}

describe("GET /api/health", () => {
  it("is 200 {status: ok} on a fresh server, never cached, with no figures", async () => {
    expect(await health()).toStrictEqual({ status: 200, cache: "no-store", body: { status: "ok" } });
  });

  it("turns 503 with dead_leads when a lead dies, and one alert without personal data reaches the chat", async () => {
    const body = await leadThatDies();
    expect(await health()).toMatchObject({
      status: 503,
      body: { status: "degraded", problems: ["receiver_failing", "dead_leads"] },
    });

    const dead = alerts().filter((alert) => alert.kind === "dead");
    expect(dead).toStrictEqual([
      expect.objectContaining({
        form: "waitlist",
        leads: 1,
        command: "npm run leads -- retry --dead",
        text: expect.stringContaining("1 dead waitlist lead"),
      }),
    ]);
    // The first failure after a success said the receiver started failing.
    expect(alerts().filter((alert) => alert.kind === "failing")).toHaveLength(1);
    for (const alert of alerts()) {
      const words = JSON.stringify(alert);
      expect(words).not.toContain(body.name);
      expect(words).not.toContain(body.phone);
      expect(words).not.toContain(body.phone.slice(2));
    }
  });

  it("sends no second alert for a second death within ALERT_MIN_INTERVAL_MINUTES, then one recovery alert when retry --dead delivers", async () => {
    await leadThatDies();
    await leadThatDies();
    expect(alerts().filter((alert) => alert.kind === "dead")).toHaveLength(1);
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["receiver_failing", "dead_leads"] } });

    workflow.outage(undefined);
    // What `npm run leads -- retry --dead` runs.
    const summary = await redeliveryPass(readEnv(), {
      sender: "operator",
      due: () => deadLeads,
    });
    expect(summary.delivered).toBe(2);
    await alertsSettled();
    expect(await health()).toMatchObject({ status: 200, body: { status: "ok" } });
    // Said within the interval once it has worked for the grace period: the next pass's review after it.
    expect(alerts().filter((alert) => alert.kind === "recovered")).toStrictEqual([]);
    vi.setSystemTime(Date.now() + 5 * 60_000);
    await reviewReceivers(await database(readEnv()), readEnv());
    await alertsSettled();
    expect(alerts().filter((alert) => alert.kind === "recovered")).toStrictEqual([
      expect.objectContaining({ form: "waitlist", text: expect.stringContaining("waitlist deliveries work again") }),
    ]);
  });

  it("is back to 200 once the operator drops the last dead lead, with no sign-up since", async () => {
    await leadThatDies();
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["receiver_failing", "dead_leads"] } });
    const { db } = await database(readEnv());
    const [dead] = await db.selectFrom("outbox").select("id").where("state", "=", "dead").execute();
    const printed: string[] = [];
    await leadsCommand(
      ["drop", dead!.id],
      (line) => printed.push(line),
      () => {},
    );
    expect(printed).toStrictEqual([`dropped ${dead!.id}`]);
    expect(await health()).toStrictEqual({ status: 200, cache: "no-store", body: { status: "ok" } });
  });

  it("turns 503 with overdue_leads while a pending lead is older than HEALTH_MAX_PENDING_AGE_SECONDS", async () => {
    workflow.outage(503);
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "3600");
    const first = await submitted("waitlist", lead());
    await alertsSettled();
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["receiver_failing"] } });
    const { db } = await database(readEnv());
    await db
      .updateTable("outbox")
      .set({ created_at: Date.now() - 2 * 3_600_000 })
      .where("id", "=", first.webhookId)
      .execute();
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["receiver_failing", "overdue_leads"] } });
    vi.stubEnv("HEALTH_MAX_PENDING_AGE_SECONDS", String(3 * 3_600));
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["receiver_failing"] } });
  });

  it("turns 503 with database_unreachable when the database cannot be opened", async () => {
    await closeDatabases();
    const working = process.env.DATA_DIR!;
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["database_unreachable"] } });
    // The outage is logged once, saying where it was seen.
    const failed = errors.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; during?: string });
    expect(failed.filter(({ event }) => event === "lead_store_failed")).toMatchObject([{ during: "health" }]);
    // Back, so the next test starts with a database that answers (and its outage's alerts settled).
    vi.stubEnv("DATA_DIR", working);
    expect((await health()).status).toBe(200);
    await alertsSettled();
  });

  it("sends one alert when the database stops answering, none more while it is down, and one when it answers again", async () => {
    // A working database first: the same set-up that sends nothing.
    expect((await health()).status).toBe(200);
    await alertsSettled();
    expect(alerts()).toStrictEqual([]);

    await closeDatabases();
    const working = process.env.DATA_DIR!;
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    for (let poll = 0; poll < 3; poll += 1) expect((await health()).status).toBe(503);
    await alertsSettled();
    expect(alerts()).toStrictEqual([
      expect.objectContaining({
        kind: "database_down",
        form: "all",
        command: "npm run db:migrate",
        text: expect.stringMatching(
          /^Sous: the database does not answer since .* sign-ups are refused.* Check the SQLite file in DATA_DIR;/,
        ),
      }),
    ]);

    vi.stubEnv("DATA_DIR", working);
    expect((await health()).status).toBe(200);
    expect((await health()).status).toBe(200);
    await alertsSettled();
    expect(alerts().map((alert) => [alert.kind, alert.command])).toStrictEqual([
      ["database_down", "npm run db:migrate"],
      ["database_up", "npm run leads"],
    ]);
    expect(alerts()[1]!.text).toMatch(/^Sous: the database answers again, after 1 min since /);
  });

  it("tells the database's outage to no one without ALERT_WEBHOOK_URL: no alert tried, so none logged as failed", async () => {
    vi.stubEnv("ALERT_WEBHOOK_URL", "");
    await closeDatabases();
    const working = process.env.DATA_DIR!;
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    expect((await health()).status).toBe(503);
    vi.stubEnv("DATA_DIR", working);
    expect((await health()).status).toBe(200);
    await alertsSettled();
    expect(alerts()).toStrictEqual([]);
    const lines = (["info", "warn", "error"] as const).flatMap((method) =>
      vi.mocked(console[method]).mock.calls.map((call) => JSON.parse(String(call[0])) as { event?: string }),
    );
    expect(lines.filter((line) => line.event?.startsWith("alert_"))).toStrictEqual([]);
    // The same outage with it set is told, down and up: the test above.
  });

  it("turns 503 with redis_unreachable when the configured Redis stops, and 200 while it answers", async () => {
    const redis = await startRedisServer();
    vi.stubEnv("REDIS_URL", redis.url);
    vi.stubEnv("REDIS_COMMAND_TIMEOUT_MS", "200");
    try {
      await vi.waitFor(async () => expect(await health()).toMatchObject({ status: 200 }), { timeout: 5_000 });
    } finally {
      await redis.stop();
    }
    expect(await health()).toMatchObject({ status: 503, body: { problems: ["redis_unreachable"] } });
  });

  it("shows figures per form only to the bearer of HEALTH_TOKEN", async () => {
    // A lead waiting for its next attempt, with nothing failing now.
    const { db } = await database(readEnv());
    const now = Date.now();
    await db
      .insertInto("outbox")
      .values({
        id: `msg_${crypto.randomUUID()}`,
        receiver: "waitlist",
        dedupe_key: null,
        payload: "{}",
        state: "pending",
        created_at: now,
        next_attempt_at: now + 3_600_000,
      })
      .execute();
    expect(Object.keys((await health(`Bearer ${token}`)).body)).toStrictEqual(["status"]);

    vi.stubEnv("HEALTH_TOKEN", token);
    for (const wrong of [undefined, `Bearer ${token}x`, token, `Bearer ${token.slice(1)}`]) {
      expect((await health(wrong)).body, String(wrong)).toStrictEqual({ status: "ok" });
    }
    const { body } = await health(`Bearer ${token}`);
    expect(body).toStrictEqual({
      status: "ok",
      forms: {
        contact: {
          pending: 0,
          held: 0,
          dead: 0,
          waitingForBudget: 0,
          waitingForOperator: 0,
          oldestPendingAgeSeconds: null,
          lastDeliveredAt: null,
          failingSince: null,
          lastFailure: null,
        },
        waitlist: {
          pending: 1,
          held: 0,
          dead: 0,
          waitingForBudget: 0,
          waitingForOperator: 0,
          oldestPendingAgeSeconds: expect.any(Number),
          lastDeliveredAt: null,
          failingSince: null,
          lastFailure: null,
        },
      },
      invitations: { waiting: 0, failingSince: null, lastFailure: null },
    });

    await submitted("waitlist", lead());
    const after = await health(`Bearer ${token}`);
    expect((after.body.forms as Record<string, { lastDeliveredAt: string }>).waitlist!.lastDeliveredAt).toMatch(
      /^\d{4}-\d\d-\d\dT/,
    );
  });
});

describe("GET /api/health while a receiver fails", () => {
  it("is 503 receiver_failing from the first failed attempt to the next success, on every instance, alerts set or not", async () => {
    vi.stubEnv("ALERT_WEBHOOK_URL", "");
    vi.stubEnv("HEALTH_TOKEN", token);
    workflow.outage(503);
    const before = Date.now();
    await submitted("waitlist", lead());
    await alertsSettled();
    const failing = await health(`Bearer ${token}`);
    expect(failing).toMatchObject({ status: 503, body: { status: "degraded", problems: ["receiver_failing"] } });
    const since = Date.parse((failing.body.forms as Record<string, { failingSince: string }>).waitlist!.failingSince);
    expect(since).toBeGreaterThanOrEqual(before);
    expect((failing.body.forms as Record<string, { failingSince: string | null }>).contact!.failingSince).toBeNull();

    // Another instance on the same database sees the same.
    const { connect } = await import("@/server/db/connect");
    const other = await connect({ DATA_DIR: String(process.env.DATA_DIR), DATABASE_URL: undefined });
    try {
      const { failingReceivers } = await import("@/server/outbox/alert-store");
      expect(await failingReceivers(other)).toStrictEqual([{ form: "waitlist", since, lastFailure: "status 503" }]);
    } finally {
      await other.db.destroy();
    }

    workflow.outage(undefined);
    await submitted("waitlist", lead());
    await alertsSettled();
    expect(await health()).toStrictEqual({ status: 200, cache: "no-store", body: { status: "ok" } });
  });
});

describe("GET /api/health while the invitations' workflow refuses the site's signature", () => {
  const afternoon = Date.parse("2026-11-27T18:00:00Z");
  let invite: Awaited<ReturnType<typeof startInviteReceiver>>;
  beforeAll(async () => {
    invite = await startInviteReceiver();
  });
  afterAll(() => invite.close());
  afterEach(() => void vi.useRealTimers());

  it("is 503 receiver_failing with its answer, and one alert names it and INVITE_WEBHOOK_SECRET; set right, the next pass texts them once and the channel hears it works", async () => {
    // 13:00 in New York: inside the sending hours.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(afternoon);
    const workflowSecret = newWebhookSecret();
    invite.checkSignature(workflowSecret);
    vi.stubEnv("HEALTH_TOKEN", token);
    vi.stubEnv("INVITE_WEBHOOK_URL", invite.url);
    vi.stubEnv("INVITE_WEBHOOK_SECRET", newWebhookSecret());
    vi.stubEnv("INVITE_PER_MINUTE", "6000");
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "60,3600");
    const store = await database(readEnv());
    for (const table of ["invitations", "invitation_waves", "invitation_pace"] as const)
      await store.db.deleteFrom(table).execute();
    const phones = Array.from({ length: 5 }, (_, i) => `+1212555${String(7100 + i)}`);
    for (const phone of phones)
      await recordConsent(store, { evidence: webConsent(phone), leadId: newWebhookId(), at: afternoon - 60_000 });
    const text = smsTexts.invitation("https://sous.example/start");
    await queueWave(store, { name: "wrong-secret", selection: { phones }, text: () => text, now: afternoon });
    // Its working twin, before: nothing fails yet.
    expect((await health(`Bearer ${token}`)).status).toBe(200);

    const pass = () => invitationPass(store, readEnv(), { budgetMs: 10_000 });
    // Three refusals in a row pause the pass: the workflow is left alone until the next one.
    expect(await pass()).toMatchObject({ retrying: 3, texted: 0 });
    await alertsSettled();
    const failing = await health(`Bearer ${token}`);
    expect(failing).toMatchObject({ status: 503, body: { status: "degraded", problems: ["receiver_failing"] } });
    expect(failing.body.invitations).toStrictEqual({
      waiting: 5,
      failingSince: expect.stringMatching(/^2026-11-27T18:0\d:/),
      lastFailure: "status 401 signature",
    });
    const [alert, ...more] = alerts();
    expect(more).toStrictEqual([]);
    expect(alert).toMatchObject({
      kind: "failing",
      form: "invitations",
      leads: 5,
      command: "npm run invite -- status",
    });
    expect(alert!.text).toContain("The last answer: status 401 signature.");
    expect(alert!.text).toContain("INVITE_WEBHOOK_SECRET is not a secret the workflow checks");
    expect(alert!.text).toContain(
      "5 invitations waiting for redelivery. Once it answers, the site finds out within REDELIVERY_PROBE_SECONDS (60 s) and sends them at INVITE_PER_MINUTE, within their hours.",
    );
    for (const phone of phones) expect(alert!.text).not.toContain(phone.slice(2));

    // The operator sets the secret the workflow checks and restarts; the retries come due.
    vi.stubEnv("INVITE_WEBHOOK_SECRET", workflowSecret);
    vi.setSystemTime(Date.now() + 3_600_000);
    expect(await pass()).toMatchObject({ texted: 5 });
    await alertsSettled();
    expect(
      invite
        .texted(phones)
        .map((call) => call.phone)
        .sort(),
    ).toStrictEqual([...phones].sort());
    expect(await health(`Bearer ${token}`)).toMatchObject({
      status: 200,
      body: { status: "ok", invitations: { waiting: 0, failingSince: null, lastFailure: null } },
    });
    expect(alerts().map((told) => [told.kind, told.form])).toStrictEqual([
      ["failing", "invitations"],
      ["recovered", "invitations"],
    ]);
  });

  it("tells of an invitation whose schedule ran out once, as dead, and then keeps no receiver failing: no command sends it again", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(afternoon);
    invite.checkSignature(newWebhookSecret());
    vi.stubEnv("HEALTH_TOKEN", token);
    vi.stubEnv("INVITE_WEBHOOK_URL", invite.url);
    vi.stubEnv("INVITE_WEBHOOK_SECRET", newWebhookSecret());
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1");
    const store = await database(readEnv());
    for (const table of ["invitations", "invitation_waves", "invitation_pace"] as const)
      await store.db.deleteFrom(table).execute();
    const phone = "+12125557199";
    await recordConsent(store, { evidence: webConsent(phone), leadId: newWebhookId(), at: afternoon - 60_000 });
    const text = smsTexts.invitation("https://sous.example/start");
    await queueWave(store, { name: "spent", selection: { phones: [phone] }, text: () => text, now: afternoon });
    expect(await invitationPass(store, readEnv(), { budgetMs: 10_000 })).toMatchObject({
      failed: 1,
    });
    await alertsSettled();
    // Nothing waits after it: no failing alert, the dead one alone.
    expect(alerts().map((told) => [told.kind, told.form, told.leads, told.command])).toStrictEqual([
      ["dead", "invitations", 1, "npm run invite -- status"],
    ]);
    expect(alerts()[0]!.text).toContain(
      "Sous: 1 dead launch invitation, the oldest from 2026-11-27 18:00 UTC: their redelivery schedule ran out. See them with `npm run invite -- status`.",
    );
    // Nothing waits: the receiver is not failing for /api/health, and the next review clears it.
    expect(await health(`Bearer ${token}`)).toMatchObject({ status: 200, body: { invitations: { waiting: 0 } } });
    await reviewReceivers(store, readEnv());
    const { failingReceivers } = await import("@/server/outbox/alert-store");
    expect(await failingReceivers(store)).toStrictEqual([]);
  });
});

describe("GET /api/health's figures", () => {
  it("count each state, age the oldest pending lead, date the last delivery, and take in a form the site no longer has", async () => {
    vi.stubEnv("HEALTH_TOKEN", token);
    const { db } = await database(readEnv());
    const now = Date.now();
    const row = (
      form: string,
      state: "pending" | "held" | "dead" | "delivered" | "awaiting_release",
      createdAt: number,
      deliveredAt: number | null = null,
      lastFailure: string | null = null,
    ) => ({
      last_failure: lastFailure,
      id: `msg_${crypto.randomUUID()}`,
      receiver: form,
      dedupe_key: null,
      payload: "{}",
      state,
      created_at: createdAt,
      next_attempt_at: now + 3_600_000,
      delivered_at: deliveredAt,
    });
    await db
      .insertInto("outbox")
      .values([
        row("waitlist", "pending", now - 600_000),
        row("waitlist", "pending", now - 120_000),
        row("waitlist", "pending", now, null, WAITS_FOR_BUDGET),
        row("waitlist", "awaiting_release", now),
        row("waitlist", "held", now),
        row("contact", "dead", now),
        row("contact", "delivered", now, Date.parse("2026-11-24T10:00:00Z")),
        row("contact", "delivered", now, Date.parse("2026-11-24T12:00:00Z")),
        row("retired", "dead", now),
      ])
      .execute();
    const { status, body } = await health(`Bearer ${token}`);
    expect(status).toBe(503);
    expect(body.problems).toStrictEqual(["dead_leads"]);
    const forms = body.forms as Record<string, { oldestPendingAgeSeconds: number }>;
    expect(forms).toStrictEqual({
      waitlist: {
        pending: 3,
        held: 1,
        dead: 0,
        waitingForBudget: 1,
        waitingForOperator: 1,
        oldestPendingAgeSeconds: expect.any(Number),
        lastDeliveredAt: null,
        failingSince: null,
        lastFailure: null,
      },
      contact: {
        pending: 0,
        held: 0,
        dead: 1,
        waitingForBudget: 0,
        waitingForOperator: 0,
        oldestPendingAgeSeconds: null,
        lastDeliveredAt: "2026-11-24T12:00:00.000Z",
        failingSince: null,
        lastFailure: null,
      },
      retired: {
        pending: 0,
        held: 0,
        dead: 1,
        waitingForBudget: 0,
        waitingForOperator: 0,
        oldestPendingAgeSeconds: null,
        lastDeliveredAt: null,
        failingSince: null,
        lastFailure: null,
      },
    });
    expect(forms.waitlist!.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(600);
    expect(forms.waitlist!.oldestPendingAgeSeconds).toBeLessThan(660);
  });
});

describe("alerts", () => {
  it("after a visitor's failed attempt say the receiver is failing, and nothing is dead yet", async () => {
    workflow.outage(503);
    await submitted("waitlist", lead());
    await alertsSettled();
    expect(alerts().map((alert) => alert.kind)).toStrictEqual(["failing"]);
  });

  it("are signed with Standard Webhooks when ALERT_WEBHOOK_SECRET is set", async () => {
    const secret = newWebhookSecret();
    vi.stubEnv("ALERT_WEBHOOK_SECRET", secret);
    await leadThatDies();
    const [request] = chat.received.slice(seen).filter((received) => received.path === "/hooks/alerts");
    expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
  });

  it("say when leads are held for want of a webhook URL, naming the variable", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    await submitted("waitlist", lead());
    await submitted("waitlist", lead());
    await alertsSettled();
    expect(alerts().filter((alert) => alert.kind === "held")).toStrictEqual([
      expect.objectContaining({
        form: "waitlist",
        leads: 1,
        text: expect.stringContaining("WAITLIST_WEBHOOK_URL is not set"),
      }),
    ]);
  });

  it("that fail are logged and keep no visitor waiting", async () => {
    chat.outage("hang");
    vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "300");
    workflow.outage(503);
    await submitted("waitlist", lead());
    // The visitor has the answer while the alert still hangs: it settles only at its own timeout.
    let alertSettled = false;
    const settling = alertsSettled().then(() => (alertSettled = true));
    await vi.waitFor(() =>
      expect(chat.received.slice(seen).filter((request) => request.answered === "hang")).toHaveLength(1),
    );
    expect(alertSettled).toBe(false);
    await settling;
    const logged = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(logged).toContainEqual(
      expect.objectContaining({ event: "alert_failed", kind: "failing", form: "waitlist", reason: "timeout" }),
    );

    // The failed alert did not use up the interval: the next failure sends it.
    chat.outage(undefined);
    await submitted("waitlist", lead());
    await alertsSettled();
    // The one that hung, and the one sent now.
    expect(alerts().filter((alert) => alert.kind === "failing")).toHaveLength(2);
  });

  it("are not sent without ALERT_WEBHOOK_URL, while the same dying lead with it set sends them", async () => {
    await leadThatDies();
    expect(alerts().map((alert) => alert.kind)).toStrictEqual(["failing", "dead"]);

    const { db } = await database(readEnv());
    for (const table of ["outbox", "alerts", "receivers", "alert_states"] as const)
      await db.deleteFrom(table).execute();
    seen = chat.received.length;
    vi.stubEnv("ALERT_WEBHOOK_URL", "");
    await leadThatDies();
    expect(alerts()).toStrictEqual([]);
  });

  it("and /api/health, with and without the token, hold no visitor's values", async () => {
    const dead = await leadThatDies();
    workflow.outage(503);
    const pending = lead();
    await submitted("waitlist", pending);
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    const held = lead();
    await submitted("waitlist", held);
    await alertsSettled();
    vi.stubEnv("HEALTH_TOKEN", token);
    const answers = [await health(), await health(`Bearer ${token}`)];
    // The token's figures are there: the same set-up that would leak, if anything did.
    expect(JSON.stringify(answers[1]!.body)).toContain('"waitlist"');
    const texts = [
      ...answers.map((answer) => JSON.stringify(answer.body)),
      ...alerts().map((alert) => JSON.stringify(alert)),
    ];
    expect(alerts().length).toBeGreaterThan(0);
    for (const person of [dead, pending, held]) {
      for (const text of texts) {
        expect(text).not.toContain(person.name);
        expect(text).not.toContain(person.phone.slice(2));
      }
    }
  });
});
