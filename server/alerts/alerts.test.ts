import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { setupBothEngines } from "@/tests/support/both-engines";
import { alertsSettled, claimAlert, noteOutcome } from "./alerts";
import type { Outcome } from "@/server/leads/outcomes";

const open = setupBothEngines();

describe.each(["sqlite", "postgres"] as const)("claimAlert on %s", (engine) => {
  it("lets one instance of many send an alert of a kind for a form per interval", async () => {
    const [a, b] = [await open(engine), await open(engine)];
    const hour = 3_600_000;
    const claims = await Promise.all(
      [a, b, a, b].map((store) => claimAlert(store, "dead", "waitlist", 10 * hour, hour)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    // Another kind, another form: their own interval.
    expect(await claimAlert(b, "failing", "waitlist", 10 * hour, hour)).toBe(true);
    expect(await claimAlert(b, "dead", "contact", 10 * hour, hour)).toBe(true);
    expect(await claimAlert(a, "dead", "waitlist", 10 * hour + hour - 1, hour)).toBe(false);
    expect(await claimAlert(a, "dead", "waitlist", 11 * hour, hour)).toBe(true);
    expect(await claimAlert(b, "dead", "waitlist", 11 * hour + 1, hour)).toBe(false);
  });
});

describe("what each alert says", () => {
  const chat = setupWebhookReceiver();
  const at = Date.parse("2026-11-24T16:00:00Z");
  const minute = 60_000;
  let seen = 0;

  beforeEach(async () => {
    vi.stubEnv("ALERT_WEBHOOK_URL", `${chat.url}/hooks/alerts`);
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
    await alertsSettled();
    seen = chat.received.length;
    const { db } = await database(readEnv());
    for (const table of ["leads", "alerts", "receivers"] as const) await db.deleteFrom(table).execute();
  });

  /** Leads of the waitlist in a state, created at the given times. */
  async function leads(state: "pending" | "dead" | "held", ...createdAt: number[]) {
    const { db } = await database(readEnv());
    for (const created of createdAt) {
      await db
        .insertInto("leads")
        .values({
          id: `msg_${crypto.randomUUID()}`,
          form: "waitlist",
          dedupe_key: null,
          payload: "{}",
          state,
          created_at: created,
          next_attempt_at: created,
        })
        .execute();
    }
  }

  async function told(outcome: Outcome, now: number) {
    noteOutcome(await database(readEnv()), "waitlist", outcome, readEnv(), now);
    await alertsSettled();
    return chat.received.slice(seen).map((request) => request.json as Record<string, unknown>);
  }

  it("a receiver that starts failing, then goes on failing, then works again", async () => {
    await leads("pending", at);
    expect(await told("pending", at)).toStrictEqual([
      {
        kind: "failing",
        form: "waitlist",
        since: "2026-11-24T16:00:00.000Z",
        leads: 1,
        command: "npm run leads",
        text: "Sous: waitlist deliveries are failing since 2026-11-24 16:00 UTC (1 min). 1 lead waiting for redelivery on schedule. Check the workflow; see them with `npm run leads`.",
      },
    ]);
    await leads("pending", at + minute);
    // Within the interval: nothing more.
    expect(await told("pending", at + 59 * minute)).toHaveLength(1);
    // After it: a reminder, still counted from the first failure.
    const [, reminder] = await told("pending", at + 150 * minute);
    expect(reminder).toMatchObject({
      since: "2026-11-24T16:00:00.000Z",
      leads: 2,
      text: expect.stringContaining("since 2026-11-24 16:00 UTC (3 h). 2 leads waiting"),
    });

    await leads("dead", at);
    const [, , recovered] = await told("delivered", at + 200 * minute);
    expect(recovered).toStrictEqual({
      kind: "recovered",
      form: "waitlist",
      since: "2026-11-24T16:00:00.000Z",
      leads: 2,
      command: "npm run leads -- retry --dead",
      text: "Sous: waitlist deliveries work again, after failing for 3 h since 2026-11-24 16:00 UTC. 2 leads still waiting will be redelivered on schedule. 1 dead lead needs `npm run leads -- retry --dead`.",
    });
    // Working already: a delivery says nothing.
    expect(await told("delivered", at + 400 * minute)).toHaveLength(3);
  });

  it("a recovery with nothing dead points at the list", async () => {
    await told("pending", at);
    const [, recovered] = await told("delivered", at + 30 * minute);
    expect(recovered).toMatchObject({
      leads: 0,
      command: "npm run leads",
      text: "Sous: waitlist deliveries work again, after failing for 30 min since 2026-11-24 16:00 UTC. 0 leads still waiting will be redelivered on schedule.",
    });
  });

  it("counts a failure in minutes up to two hours, then in hours", async () => {
    await told("pending", at);
    const [, recovered] = await told("delivered", at + 119 * minute);
    expect(recovered!.text).toContain("after failing for 119 min since");
    await told("pending", at + 200 * minute);
    const [, , , again] = await told("delivered", at + 320 * minute);
    expect(again!.text).toContain("after failing for 2 h since");
  });

  it("dead leads, counted, from the oldest", async () => {
    await leads("dead", at - 120 * minute, at - 5 * minute);
    const sent = await told("dead", at);
    expect(sent.map((alert) => alert.kind)).toStrictEqual(["failing", "dead"]);
    expect(sent[1]).toStrictEqual({
      kind: "dead",
      form: "waitlist",
      since: "2026-11-24T14:00:00.000Z",
      leads: 2,
      command: "npm run leads -- retry --dead",
      text: "Sous: 2 dead waitlist leads, the oldest from 2026-11-24 14:00 UTC: their redelivery schedule ran out. Fix the workflow, then run `npm run leads -- retry --dead`.",
    });
  });

  it("held leads, naming the variable to set", async () => {
    await leads("held", at - 10 * minute, at);
    expect(await told("held", at)).toStrictEqual([
      {
        kind: "held",
        form: "waitlist",
        since: "2026-11-24T15:50:00.000Z",
        leads: 2,
        command: "npm run leads",
        text: "Sous: 2 waitlist leads held since 2026-11-24 15:50 UTC: WAITLIST_WEBHOOK_URL is not set. Set it and restart; the next pass sends them. See them with `npm run leads`.",
      },
    ]);
    // The operator's log says it went out, with counts only.
    const logged = vi.mocked(console.info).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(logged.filter((line) => line.event === "alert_sent")).toStrictEqual([
      { level: "info", event: "alert_sent", kind: "held", form: "waitlist", leads: 2, time: expect.any(String) },
    ]);
  });

  it("no alert of any kind, for either form, and no log line about one, holds a visitor's name, phone, email or message", async () => {
    const people = {
      waitlist: { name: "Ximena Quartermaine", phone: "+15035550187" },
      contact: {
        name: "Yusuf Brightwater",
        email: "yusuf.brightwater@example.org",
        phone: "(503) 555-0199",
        clientCount: "6-15",
        currentTools: "Zorblatt Planner",
        message: "Allergic guests: kumquat",
      },
    };
    const { db } = await database(readEnv());
    for (const [form, payload] of Object.entries(people)) {
      for (const state of ["pending", "dead", "held"] as const) {
        await db
          .insertInto("leads")
          .values({
            id: `msg_${crypto.randomUUID()}`,
            form,
            dedupe_key: null,
            payload: JSON.stringify(payload),
            state,
            created_at: at,
            next_attempt_at: at,
          })
          .execute();
      }
    }
    const store = await database(readEnv());
    const kinds: string[] = [];
    for (const form of ["waitlist", "contact"]) {
      for (const [outcome, now] of [
        ["pending", at],
        ["dead", at + minute],
        ["held", at + 2 * minute],
        ["delivered", at + 3 * minute],
      ] as const) {
        noteOutcome(store, form, outcome, readEnv(), now);
        await alertsSettled();
      }
    }
    kinds.push(
      ...chat.received
        .slice(seen)
        .map((request) => `${(request.json as { form: string }).form}:${(request.json as { kind: string }).kind}`),
    );
    // The same set-up that works: every kind went out, for both forms.
    expect(kinds.sort()).toStrictEqual([
      "contact:dead",
      "contact:failing",
      "contact:held",
      "contact:recovered",
      "waitlist:dead",
      "waitlist:failing",
      "waitlist:held",
      "waitlist:recovered",
    ]);

    // An alert the chat refuses is logged as alert_failed: that line too.
    chat.outage(500);
    await db.deleteFrom("alerts").execute();
    noteOutcome(store, "contact", "dead", readEnv(), at + 10 * minute);
    await alertsSettled();
    chat.outage(undefined);

    const logged = (["info", "warn", "error"] as const).flatMap((method) =>
      vi.mocked(console[method]).mock.calls.map((call) => String(call[0])),
    );
    expect(logged.filter((line) => line.includes('"event":"alert_sent"'))).toHaveLength(8);
    expect(logged.filter((line) => line.includes('"event":"alert_failed"')).length).toBeGreaterThan(0);
    const words = [...Object.values(people.waitlist), ...Object.values(people.contact)].filter(
      (value) => !["6-15"].includes(value),
    );
    const digits = ["5035550187", "5035550199", "0187", "0199"];
    for (const text of [...chat.received.slice(seen).map((request) => request.body), ...logged]) {
      for (const word of [...words, ...digits]) expect(text).not.toContain(word);
    }
  });

  /** The alert lines logged so far (alert_sent, alert_failed). */
  const alertLines = () =>
    (["info", "warn", "error"] as const)
      .flatMap((method) => vi.mocked(console[method]).mock.calls)
      .map((call) => JSON.parse(String(call[0])) as { event?: string })
      .filter((line) => line.event?.startsWith("alert_"));

  it("no alert without ALERT_WEBHOOK_URL, though the receiver's state is kept for /api/health; the same outcome with it set alerts", async () => {
    vi.stubEnv("ALERT_WEBHOOK_URL", "");
    expect(await told("dead", at)).toStrictEqual([]);
    expect(await (await database(readEnv())).db.selectFrom("receivers").selectAll().execute()).toStrictEqual([
      { form: "waitlist", failing_since: at },
    ]);
    // Held and recovered leads say nothing either: no alert is tried, so none fails.
    expect(await told("held", at)).toStrictEqual([]);
    expect(await told("delivered", at)).toStrictEqual([]);
    expect(alertLines()).toStrictEqual([]);
    expect(await (await database(readEnv())).db.selectFrom("alerts").selectAll().execute()).toStrictEqual([]);

    vi.stubEnv("ALERT_WEBHOOK_URL", `${chat.url}/hooks/alerts`);
    expect((await told("dead", at + minute)).map((alert) => alert.kind)).toStrictEqual(["failing", "dead"]);
  });

  it("a delivery while the receiver was not failing is no recovery: no alert, no alert line", async () => {
    expect(await told("delivered", at)).toStrictEqual([]);
    expect(alertLines()).toStrictEqual([]);
    // The same delivery after a failure is one.
    expect((await told("pending", at + minute)).map((alert) => alert.kind)).toStrictEqual(["failing"]);
    expect((await told("delivered", at + 2 * minute)).map((alert) => alert.kind)).toStrictEqual([
      "failing",
      "recovered",
    ]);
  });

  it("a new outage after a recovery alerts at once, and its recovery too; the interval still holds within one outage", async () => {
    const kinds = async (outcome: Outcome, now: number) => (await told(outcome, now)).map((alert) => alert.kind);
    expect(await kinds("pending", at)).toStrictEqual(["failing"]);
    expect(await kinds("delivered", at + minute)).toStrictEqual(["failing", "recovered"]);
    // Failing again a minute later: news, though the hour is not over.
    expect(await kinds("pending", at + 2 * minute)).toStrictEqual(["failing", "recovered", "failing"]);
    // Within that outage, the interval holds.
    expect(await kinds("pending", at + 3 * minute)).toStrictEqual(["failing", "recovered", "failing"]);
    // Working again: said at once, so the last word in the channel is true.
    const last = await told("delivered", at + 4 * minute);
    expect(last.map((alert) => alert.kind)).toStrictEqual(["failing", "recovered", "failing", "recovered"]);
    expect(last.at(-1)).toMatchObject({ since: new Date(at + 2 * minute).toISOString() });
  });

  it("an alert whose words cannot be read from the database is logged, not thrown", async () => {
    const store = await database(readEnv());
    const failing = {
      ...store,
      db: {
        insertInto: () => {
          throw new Error("disk I/O error");
        },
      },
    } as unknown as typeof store;
    noteOutcome(failing, "waitlist", "held", readEnv(), at);
    await alertsSettled();
    const errors = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(errors).toStrictEqual([
      expect.objectContaining({ event: "alert_failed", kind: "held", form: "waitlist", message: "disk I/O error" }),
    ]);
  });
});
