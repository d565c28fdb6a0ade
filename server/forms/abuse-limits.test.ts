import { beforeEach, describe, expect, it, vi } from "vitest";
import { emptyContactValues } from "@/lib/forms/contact";
import { idleState } from "@/lib/forms/form-state";
import { emptyWaitlistValues } from "@/lib/forms/waitlist";
import { formData } from "@/tests/support/form-data";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { freshAddress, pinRequestHeaders } from "@/tests/support/request-headers";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { sendForm } from "@/server/forms/send-form";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { listLeads } from "@/server/outbox/outbox-store";
import { alertsSettled } from "@/server/outbox/alerts";
import { dueNow, redeliveryPass } from "@/server/forms/leads";
import { checkHealth } from "@/server/ops/health";
import { decideAwaiting } from "@/server/ops/lead-actions";
// What the forms' components bind the action to (see useServerForm).
const joinWaitlist = (previous: unknown, data: FormData) => sendForm("waitlist", previous, data);
const submitContact = (previous: unknown, data: FormData) => sendForm("contact", previous, data);

const receiver = setupWebhookReceiver();
let counter = 0;

beforeEach(() => {
  vi.stubEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
  vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "10");
  // Only the ceiling's own test meets the ceiling.
  vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1000");
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

/** A valid sign-up with its own token and, unless given, its own phone number. */
function signup(overrides: Record<string, string> = {}) {
  counter += 1;
  const token = `L${counter}x${Date.now()}`;
  const phone = `+1 555 ${String(counter).padStart(3, "0")} ${String(Date.now() % 10_000).padStart(4, "0")}`;
  return { token, fields: { name: `Ada ${token}`, phone, consent: "on", ...overrides } };
}

const join = (fields: Record<string, string>) => joinWaitlist(idleState(emptyWaitlistValues), formData(fields));

function loggedOutcomes(method: "info" | "warn" | "error") {
  return vi.mocked(console[method]).mock.calls.map((call) => JSON.parse(String(call[0])));
}

describe("per-address limit", () => {
  it("lets a burst of 40 sign-ups from one address deliver no more than the limit", async () => {
    const address = freshAddress();
    pinRequestHeaders({ "x-forwarded-for": `10.9.9.9, ${address}` });
    const attempts = Array.from({ length: 40 }, () => signup());
    const states = await Promise.all(attempts.map(({ fields }) => join(fields)));

    const delivered = attempts.filter(({ token }) => receiver.withName(token).length > 0);
    expect(delivered).toHaveLength(5);
    expect(states.filter((state) => state.status === "success")).toHaveLength(5);
    expect(states.filter((state) => state.status === "rate_limited")).toHaveLength(35);
    const refused = states.find((state) => state.status === "rate_limited");
    expect(refused?.retryAfterSeconds).toBeGreaterThan(500);
    expect(refused?.retryAfterSeconds).toBeLessThanOrEqual(600);
    // The refused keep what they typed.
    expect(refused?.values.consent).toBe(true);
  });

  it("counts each form separately, and another address starts afresh", async () => {
    const address = freshAddress();
    pinRequestHeaders({ "x-forwarded-for": address });
    for (let i = 0; i < 5; i += 1) expect((await join(signup().fields)).status).toBe("success");
    expect((await join(signup().fields)).status).toBe("rate_limited");

    const contact = await submitContact(
      idleState(emptyContactValues),
      formData({ name: `Julia ${counter}`, email: "julia@example.com", clientCount: "1-5" }),
    );
    expect(contact.status).toBe("success");

    pinRequestHeaders({ "x-forwarded-for": freshAddress() });
    expect((await join(signup().fields)).status).toBe("success");
  });

  it("follows the configured number of trusted proxies", async () => {
    vi.stubEnv("TRUSTED_PROXY_HOPS", "2");
    const client = freshAddress();
    // Each request passes a different inner proxy; the client behind them is the same.
    for (let i = 0; i < 5; i += 1) {
      pinRequestHeaders({ "x-forwarded-for": `${client}, 172.16.0.${i + 1}` });
      expect((await join(signup().fields)).status).toBe("success");
    }
    pinRequestHeaders({ "x-forwarded-for": `${client}, 172.16.0.99` });
    expect((await join(signup().fields)).status).toBe("rate_limited");
  });

  it("does not count a sign-up whose delivery failed", async () => {
    pinRequestHeaders({ "x-forwarded-for": freshAddress() });
    for (let i = 0; i < 6; i += 1) {
      const { fields } = signup();
      expect((await join({ ...fields, name: `${fields.name} [status=400]` })).status).toBe("failed");
    }
    expect((await join(signup().fields)).status).toBe("success");
  });

  it("logs which limiter refused, without the visitor's data", async () => {
    pinRequestHeaders({ "x-forwarded-for": freshAddress() });
    for (let i = 0; i < 5; i += 1) await join(signup().fields);
    const { fields } = signup();
    await join(fields);
    const line = loggedOutcomes("warn").at(-1);
    expect(line).toMatchObject({ event: "submission", form: "waitlist", outcome: "rate_limited", limiter: "address" });
    expect(JSON.stringify(line)).not.toContain(fields.phone);
  });
});

describe("per-phone limit", () => {
  it("sends at most three sign-ups a day for one phone number, whatever the address", async () => {
    const phone = `(555) 867-${String(counter).padStart(4, "0")}`;
    const states = [];
    for (let i = 0; i < 5; i += 1) {
      pinRequestHeaders({ "x-forwarded-for": freshAddress() });
      // The same number written differently is the same number.
      states.push(await join(signup({ phone: i % 2 ? phone : phone.replace(/\D/g, "") }).fields));
    }
    expect(states.map((state) => state.status)).toEqual([
      "success",
      "success",
      "success",
      "rate_limited",
      "rate_limited",
    ]);
    expect(states[3]?.retryAfterSeconds).toBeGreaterThan(86_000);
    expect(loggedOutcomes("warn").at(-1)).toMatchObject({ limiter: "phone" });
  });

  it("counts five spellings of one number, posted twice each from ten addresses, as one number, welcomed once", async () => {
    const spellings = ["(555) 201-4477", "5552014477", "+1 555 201 4477", "555.201.4477", "1-555-201-4477"];
    const attempts = [...spellings, ...spellings].map((phone) => {
      pinRequestHeaders({ "x-forwarded-for": freshAddress() });
      return signup({ phone });
    });
    const states = [];
    for (const { fields } of attempts) {
      pinRequestHeaders({ "x-forwarded-for": freshAddress() });
      states.push(await join(fields));
    }
    const delivered = attempts.flatMap(({ token }) => receiver.withName(token));
    // The first is delivered; the next two are the same number on the list already: success, nothing sent.
    expect(delivered).toHaveLength(1);
    expect((delivered[0]!.json as { phone: string }).phone).toBe("+15552014477");
    expect(states.map((state) => state.status)).toStrictEqual([
      ...Array(3).fill("success"),
      ...Array(7).fill("rate_limited"),
    ]);
  });

  it("keeps the points of posts the receiver failed: a failing workflow is no open relay", async () => {
    // Signed, so each delivery carries its webhook-id.
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    const phone = `+1 555 302 ${String(counter).padStart(4, "0")}`;
    const states = [];
    const tokens = [];
    for (let i = 0; i < 10; i += 1) {
      pinRequestHeaders({ "x-forwarded-for": freshAddress() });
      const { token, fields } = signup({ phone });
      tokens.push(token);
      states.push(await join({ ...fields, name: `${fields.name} [status=500]` }));
    }
    const ids = new Set(
      tokens.flatMap((token) => receiver.withName(token)).map((request) => request.headers["webhook-id"]),
    );
    // One number, one lead: each post that got through tried that lead again, under its one webhook-id.
    expect(ids.size).toBe(1);
    expect(tokens.flatMap((token) => receiver.withName(token)).length).toBeGreaterThanOrEqual(1);
    expect(states.map((state) => state.status)).toEqual([...Array(3).fill("failed"), ...Array(7).fill("rate_limited")]);
  });
});

describe("the address's point after a failed delivery", () => {
  // Only a receiver that proved it processed nothing (a 4xx other than 408 and
  // 429) gives the visitor's address its point back: the five posts below
  // either leave the address free for a sixth, or use it up.
  it.each([
    { directive: "[status=404]", sixth: "success" },
    { directive: "[status=422]", sixth: "success" },
    { directive: "[status=408]", sixth: "rate_limited" },
    { directive: "[status=429]", sixth: "rate_limited" },
    { directive: "[status=500]", sixth: "rate_limited" },
    { directive: "[redirect]", sixth: "rate_limited" },
  ])("after five answered $directive, the address's sixth post is $sixth", async ({ directive, sixth }) => {
    pinRequestHeaders({ "x-forwarded-for": freshAddress() });
    for (let i = 0; i < 5; i += 1) {
      const { fields } = signup();
      expect((await join({ ...fields, name: `${fields.name} ${directive}` })).status).toBe("failed");
    }
    expect((await join(signup().fields)).status).toBe(sixth);
  });
});

describe("client addresses", () => {
  it("counts every address of one IPv6 /64 as one client", async () => {
    const network = `2001:db8:${counter.toString(16)}:7`;
    const states = [];
    for (let i = 1; i <= 8; i += 1) {
      pinRequestHeaders({ "x-forwarded-for": `${network}::${i.toString(16)}` });
      states.push((await join(signup().fields)).status);
    }
    expect(states).toEqual([...Array(5).fill("success"), ...Array(3).fill("rate_limited")]);
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address", async () => {
    const address = freshAddress();
    const states = [];
    for (let i = 0; i < 8; i += 1) {
      pinRequestHeaders({ "x-forwarded-for": i % 2 ? address : `::ffff:${address}` });
      states.push((await join(signup().fields)).status);
    }
    expect(states).toEqual([...Array(5).fill("success"), ...Array(3).fill("rate_limited")]);
  });
});

describe("per-email limit", () => {
  it("sends at most three contact requests a day for one email address, whatever the address", async () => {
    const email = `Julia.${counter}@Example.com`;
    const states = [];
    for (let i = 0; i < 4; i += 1) {
      pinRequestHeaders({ "x-forwarded-for": freshAddress() });
      counter += 1;
      const fields = { name: `Julia ${counter}`, email: i % 2 ? email : email.toLowerCase(), clientCount: "1-5" };
      states.push((await submitContact(idleState(emptyContactValues), formData(fields))).status);
    }
    expect(states).toEqual(["success", "success", "success", "rate_limited"]);
    expect(loggedOutcomes("warn").at(-1)).toMatchObject({ form: "contact", limiter: "email" });
  });
});

describe("the waitlist's budget", () => {
  beforeEach(async () => void (await (await database(readEnv())).db.deleteFrom("outbox_pace").execute()));
  const awaitingRelease = async (tokens: string[]) =>
    (await listLeads(await database(readEnv()), { form: "waitlist", states: ["awaiting_release"] }))
      .filter((row) => tokens.some((token) => row.payload?.includes(token)))
      .map((row) => row.id);
  const waiting = async (tokens: string[]) =>
    (await listLeads(await database(readEnv()), { form: "waitlist", states: ["pending"] }))
      .filter((row) => tokens.some((token) => row.payload?.includes(token)))
      .map((row) => ({ attempts: row.attempts, dueInAMinute: row.next_attempt_at <= Date.now() + 60_000 }));

  it("keeps and answers every sign-up past the per-minute ceiling, and sends it once the minute is over", async () => {
    vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "4");
    const signups = Array.from({ length: 6 }, () => signup());
    const states = [];
    for (const { fields } of signups) states.push((await join(fields)).status);
    expect(states).toEqual(Array(6).fill("success"));
    const sent = signups.map(({ token }) => receiver.withName(token).length);
    expect(sent).toEqual([1, 1, 1, 1, 0, 0]);
    expect(await waiting(signups.slice(4).map(({ token }) => token))).toEqual([
      { attempts: 0, dueInAMinute: true },
      { attempts: 0, dueInAMinute: true },
    ]);
    expect(loggedOutcomes("info").filter((line) => line.outcome === "budget")).toHaveLength(2);
  });

  it("keeps and answers every sign-up past the day's budget, warns at 80% of it, then waits for an owner", async () => {
    vi.stubEnv("WAITLIST_DAILY_LIMIT", "5");
    vi.stubEnv("ALERT_WEBHOOK_URL", `${receiver.url}/hooks/alerts`);
    const store = await database(readEnv());
    await store.db.deleteFrom("alerts").execute();
    await store.db.deleteFrom("outbox").where("state", "=", "awaiting_release").execute();
    const alerts = () => receiver.received.filter((request) => request.path === "/hooks/alerts").length;
    const alertsBefore = alerts();
    const signups = Array.from({ length: 8 }, () => signup());
    const states = [];
    for (const { fields } of signups) states.push((await join(fields)).status);
    expect(states).toEqual(Array(8).fill("success"));
    expect(signups.map(({ token }) => receiver.withName(token).length)).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);
    expect(await waiting(signups.map(({ token }) => token))).toEqual([]);
    expect(loggedOutcomes("warn").filter((line) => line.event === "daily_budget_80")).toEqual([
      expect.objectContaining({ form: "waitlist", used: 4, limit: 5 }),
    ]);
    const [released, dropped, kept] = await awaitingRelease(signups.slice(5).map(({ token }) => token));
    expect((await checkHealth(readEnv(), { figures: true })).forms?.waitlist).toMatchObject({ waitingForOperator: 3 });

    // One alert, with the count and no number; tomorrow's budget sends none of them.
    await alertsSettled();
    const told = receiver.received.filter((request) => request.path === "/hooks/alerts").slice(alertsBefore);
    expect(told.map((request) => request.json)).toEqual([
      expect.objectContaining({ kind: "over_budget", form: "waitlist", leads: expect.any(Number) }),
    ]);
    const alert = told[0]!.json as { leads: number; since: string; command: string; text: string };
    expect(alert.leads).toBeGreaterThanOrEqual(1);
    expect(alert.command).toBe("/console/deliveries");
    const first = await store.db
      .selectFrom("outbox")
      .select("created_at")
      .where("id", "=", released!)
      .executeTakeFirst();
    expect(alert.since).toBe(new Date(Number(first!.created_at)).toISOString());
    expect(alert.text).toMatch(
      /^Sous: the day's texts budget of the waitlist form is spent: \d+ waitlist leads? since .+ UTC wait for your decision/,
    );
    expect(told[0]!.body).not.toMatch(/555/);
    await store.db.deleteFrom("outbox_pace").execute();
    await redeliveryPass(readEnv(), { due: () => dueNow(Number.MAX_SAFE_INTEGER) });
    expect(signups.slice(5).map(({ token }) => receiver.withName(token).length)).toEqual([0, 0, 0]);

    // An owner's decision: released, sent now; dropped, gone with its consent record.
    const by = { actor: "owner@example.com", via: "command" } as const;
    expect(await decideAwaiting(readEnv(), { ids: [released!], subject: released!, release: true, by })).toBe(1);
    expect(receiver.withName(signups[5]!.token)).toHaveLength(1);
    expect(await decideAwaiting(readEnv(), { ids: [dropped!], subject: dropped!, release: false, by })).toBe(1);
    expect(await store.db.selectFrom("outbox").select("id").where("id", "=", dropped!).execute()).toEqual([]);
    expect(await store.db.selectFrom("consents").select("id").where("lead_id", "=", dropped!).execute()).toEqual([]);
    expect(await store.db.selectFrom("consents").select("id").where("lead_id", "=", kept!).execute()).toHaveLength(1);
    expect(await awaitingRelease(signups.slice(5).map(({ token }) => token))).toEqual([kept]);
    expect(
      await store.db
        .selectFrom("operator_activity")
        .select(["action", "rows"])
        .where("subject", "in", [released!, dropped!])
        .execute(),
    ).toEqual(
      expect.arrayContaining([
        { action: "redeliver", rows: 1 },
        { action: "drop", rows: 1 },
      ]),
    );
  });
});

describe("honeypot", () => {
  it("answers a bot that fills the hidden field with success and delivers nothing", async () => {
    const { token, fields } = signup();
    const state = await join({ ...fields, website: "https://spam.example" });
    expect(state.status).toBe("success");
    expect(receiver.withName(token)).toEqual([]);
    expect(loggedOutcomes("warn").at(-1)).toMatchObject({ event: "submission", form: "waitlist", outcome: "honeypot" });
    // The same sign-up without the trap is delivered: the receiver was there to see it.
    expect((await join(fields)).status).toBe("success");
    expect(receiver.withName(token)).toHaveLength(1);
  });

  it("works on the contact form too", async () => {
    const name = `Julia honeypot ${counter}`;
    const state = await submitContact(
      idleState(emptyContactValues),
      formData({ name, email: "julia@example.com", clientCount: "1-5", website: "x" }),
    );
    expect(state.status).toBe("success");
    expect(receiver.withName(name)).toEqual([]);
    // The same request without the trap is delivered: the receiver was there to see it.
    await submitContact(
      idleState(emptyContactValues),
      formData({ name, email: "julia@example.com", clientCount: "1-5" }),
    );
    expect(receiver.withName(name)).toHaveLength(1);
  });

  it("lets an empty hidden field through", async () => {
    const { token, fields } = signup();
    expect((await join({ ...fields, website: "" })).status).toBe("success");
    expect(receiver.withName(token)).toHaveLength(1);
  });
});
