import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { setupBothEngines } from "@/tests/support/both-engines";
import { reserveAlert } from "./alert-store";
import { adviceFor, alertsSettled, noteOutcome, noteStoreChange, reviewReceivers } from "./alerts";
import type { Outcome } from "@/server/outbox/alerts";

const open = setupBothEngines();

describe.each(["sqlite", "postgres"] as const)("reserveAlert on %s", (engine) => {
  it("lets one instance of many send an alert of a kind for a form per interval", async () => {
    const [a, b] = [await open(engine), await open(engine)];
    const hour = 3_600_000;
    const claims = await Promise.all(
      [a, b, a, b].map((store) =>
        reserveAlert(store, { kind: "dead", form: "waitlist", now: 10 * hour, intervalMs: hour }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    // Another kind, another form: their own interval.
    expect(await reserveAlert(b, { kind: "failing", form: "waitlist", now: 10 * hour, intervalMs: hour })).toBe(true);
    expect(await reserveAlert(b, { kind: "dead", form: "contact", now: 10 * hour, intervalMs: hour })).toBe(true);
    expect(await reserveAlert(a, { kind: "dead", form: "waitlist", now: 10 * hour + hour - 1, intervalMs: hour })).toBe(
      false,
    );
    expect(await reserveAlert(a, { kind: "dead", form: "waitlist", now: 11 * hour, intervalMs: hour })).toBe(true);
    expect(await reserveAlert(b, { kind: "dead", form: "waitlist", now: 11 * hour + 1, intervalMs: hour })).toBe(false);
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
    for (const table of ["outbox", "alerts", "receivers", "alert_states"] as const)
      await db.deleteFrom(table).execute();
  });

  /** Leads of the waitlist in a state, created at the given times. */
  async function leads(state: "pending" | "dead" | "held", ...createdAt: number[]) {
    const { db } = await database(readEnv());
    for (const created of createdAt) {
      await db
        .insertInto("outbox")
        .values({
          id: `msg_${crypto.randomUUID()}`,
          receiver: "waitlist",
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
    vi.setSystemTime(now);
    noteOutcome(await database(readEnv()), { receiver: "waitlist", outcome: outcome, env: readEnv() });
    await alertsSettled();
    return chat.received.slice(seen).map((request) => request.json as Record<string, unknown>);
  }

  /** What a pass's review at `now` adds: what has lasted its grace period is told. */
  async function tick(now: number) {
    vi.setSystemTime(now);
    await reviewReceivers(await database(readEnv()), readEnv());
    await alertsSettled();
    return chat.received.slice(seen).map((request) => request.json as Record<string, unknown>);
  }

  /** The waitlist's open leads delivered, as a working receiver leaves them. */
  async function deliverAll() {
    const { db } = await database(readEnv());
    await db.updateTable("outbox").set({ state: "delivered" }).where("state", "in", ["pending", "dead"]).execute();
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
        text: "Sous: waitlist deliveries are failing since 2026-11-24 16:00 UTC (1 min). Check the workflow. 1 lead waiting for redelivery. Once it answers, the site finds out within REDELIVERY_PROBE_SECONDS (60 s) and sends them; `npm run leads -- retry` sends them now. See them with `npm run leads`.",
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
      text: expect.stringContaining(
        "since 2026-11-24 16:00 UTC (3 h). Check the workflow. 2 leads waiting for redelivery. Once it answers",
      ),
    });

    await leads("dead", at);
    // Working again 50 min after the reminder: within the interval, told once it has worked for the grace period.
    expect(await told("delivered", at + 200 * minute)).toHaveLength(2);
    expect(await tick(at + 204 * minute)).toHaveLength(2);
    const [, , recovered] = await tick(at + 205 * minute);
    expect(recovered).toStrictEqual({
      kind: "recovered",
      form: "waitlist",
      since: "2026-11-24T16:00:00.000Z",
      leads: 2,
      command: "npm run leads -- retry --dead",
      text: "Sous: waitlist deliveries work again, after failing for 3 h since 2026-11-24 16:00 UTC. 2 leads still waiting: due now, sent by the next pass. 1 dead lead needs `npm run leads -- retry --dead`.",
    });
    // Working already: a delivery, or a review, says nothing.
    expect(await told("delivered", at + 400 * minute)).toHaveLength(3);
    expect(await tick(at + 500 * minute)).toHaveLength(3);
  });

  it("a recovery with nothing dead points at the list", async () => {
    await leads("pending", at);
    await told("pending", at);
    await deliverAll();
    await told("delivered", at + 30 * minute);
    const [, recovered] = await tick(at + 35 * minute);
    expect(recovered).toMatchObject({
      leads: 0,
      command: "npm run leads",
      text: "Sous: waitlist deliveries work again, after failing for 30 min since 2026-11-24 16:00 UTC. 0 leads still waiting: due now, sent by the next pass.",
    });
  });

  it("counts a failure in minutes up to two hours, then in hours", async () => {
    await leads("pending", at);
    await told("pending", at);
    await deliverAll();
    await told("delivered", at + 119 * minute);
    const [, recovered] = await tick(at + 124 * minute);
    expect(recovered!.text).toContain("after failing for 119 min since");
    // Over an hour after the last alert: each change is told at once.
    await leads("pending", at + 200 * minute);
    expect((await told("pending", at + 200 * minute)).map((alert) => alert.kind)).toStrictEqual([
      "failing",
      "recovered",
      "failing",
    ]);
    await deliverAll();
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
          .insertInto("outbox")
          .values({
            id: `msg_${crypto.randomUUID()}`,
            receiver: form,
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
    for (const form of ["waitlist", "contact"] as const) {
      for (const [outcome, now] of [
        ["pending", at],
        ["dead", at + minute],
        ["held", at + 2 * minute],
        ["delivered", at + 3 * minute],
      ] as const) {
        vi.setSystemTime(now);
        noteOutcome(store, { receiver: form, outcome: outcome, env: readEnv() });
        await alertsSettled();
      }
    }
    // Working for the grace period since: told.
    vi.setSystemTime(at + 10 * minute);
    await reviewReceivers(store, readEnv());
    await alertsSettled();
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
    vi.setSystemTime(at + 10 * minute);
    noteOutcome(store, { receiver: "contact", outcome: "dead", env: readEnv() });
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
    await leads("dead", at);
    expect(await told("dead", at)).toStrictEqual([]);
    expect(await (await database(readEnv())).db.selectFrom("receivers").selectAll().execute()).toStrictEqual([
      { form: "waitlist", failing_since: at, last_failure: null, probed_at: null },
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
    expect(await tick(at + 10 * minute)).toStrictEqual([]);
    expect(alertLines()).toStrictEqual([]);
    // The same delivery after a failure is one, told once it has lasted the grace period.
    await leads("pending", at + minute);
    expect((await told("pending", at + minute)).map((alert) => alert.kind)).toStrictEqual(["failing"]);
    await deliverAll();
    expect((await told("delivered", at + 2 * minute)).map((alert) => alert.kind)).toStrictEqual(["failing"]);
    expect((await tick(at + 7 * minute)).map((alert) => alert.kind)).toStrictEqual(["failing", "recovered"]);
  });

  it("a receiver flapping 8 times in 20 minutes: one failing, then one recovery that counts the flaps", async () => {
    let now = at;
    for (let flap = 0; flap < 8; flap += 1) {
      // Failing for a minute, working for a minute and a half: each state shorter than the grace period.
      await leads("pending", now);
      await told("pending", now);
      await tick(now + 30_000);
      await deliverAll();
      await told("delivered", now + minute);
      await tick(now + 2 * minute);
      now += 2.5 * minute;
    }
    const last = now - 1.5 * minute;
    expect((await tick(last + 4 * minute)).map((alert) => alert.kind)).toStrictEqual(["failing"]);
    // Working for the grace period after the last flap: told, with the flaps summed up.
    const said = await tick(last + 5 * minute);
    expect(said.map((alert) => alert.kind)).toStrictEqual(["failing", "recovered"]);
    expect(said[1]!.text).toBe(
      "Sous: waitlist deliveries work again, after failing 8 times in 19 min since 2026-11-24 16:00 UTC, working since 2026-11-24 16:18 UTC. 0 leads still waiting: due now, sent by the next pass.",
    );
    // Quiet again: nothing more.
    expect(await tick(last + 30 * minute)).toHaveLength(2);
  });

  it("a failing alert after flaps counts them, though the channel last said it works", async () => {
    // Failing past the grace period after a quiet interval's recovery: told, with the two outages counted.
    await leads("pending", at);
    await told("pending", at);
    await deliverAll();
    await told("delivered", at + minute);
    await tick(at + 6 * minute);
    await leads("pending", at + 10 * minute);
    await told("pending", at + 10 * minute);
    await deliverAll();
    await told("delivered", at + 11 * minute);
    await leads("pending", at + 12 * minute);
    await told("pending", at + 12 * minute);
    const [, , failing] = await tick(at + 17 * minute);
    expect(failing).toMatchObject({ kind: "failing", since: new Date(at + 12 * minute).toISOString() });
    expect(failing!.text).toContain(
      "It failed 2 times in 7 min since 2026-11-24 16:10 UTC, working in between. Once it answers,",
    );
  });

  it("an alert the chat refuses is logged, tried again by a pass a minute later at the soonest (by a new lead at once), and told once it is taken", async () => {
    const errors = vi.mocked(console.error);
    chat.outage(503);
    await leads("pending", at);
    expect(await told("pending", at)).toHaveLength(1);
    expect(chat.received.at(-1)!.answered).toBe(503);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual({
      time: expect.any(String),
      level: "error",
      event: "alert_failed",
      kind: "failing",
      form: "waitlist",
      reason: "status",
      status: 503,
    });
    // A pass within the minute does not try again; one after it does.
    expect(await tick(at + 30_000)).toHaveLength(1);
    expect(await tick(at + 59_999)).toHaveLength(1);
    expect(await tick(at + minute)).toHaveLength(2);
    // A new lead's review tries again at once.
    expect(await told("pending", at + minute + 1)).toHaveLength(3);
    chat.outage(undefined);
    expect(await tick(at + minute + 2)).toHaveLength(3);
    const taken = await tick(at + 2 * minute + 1);
    expect(taken.map((alert) => [alert.kind, chat.received.at(-1)!.answered])).toContainEqual(["failing", 200]);
    expect(taken).toHaveLength(4);
    // Told: nothing more within the interval.
    expect(await tick(at + 10 * minute)).toHaveLength(4);
  });

  it("a dead alert the chat refused goes out with the next dead lead, not an interval later", async () => {
    await leads("dead", at);
    chat.outage(500);
    expect((await told("dead", at)).map((alert) => alert.kind)).toStrictEqual(["failing", "dead"]);
    chat.outage(undefined);
    await leads("dead", at + minute);
    const kinds = (await told("dead", at + minute)).map((alert) => alert.kind);
    expect(kinds.filter((kind) => kind === "dead")).toHaveLength(2);
    expect(chat.received.at(-1)!.answered).toBe(200);
  });

  it("a failure that lasts past the grace period after a recovery is told within the interval; a shorter one is not", async () => {
    await leads("pending", at);
    await told("pending", at);
    await deliverAll();
    await told("delivered", at + minute);
    expect((await tick(at + 6 * minute)).map((alert) => alert.kind)).toStrictEqual(["failing", "recovered"]);

    await leads("pending", at + 10 * minute);
    await told("pending", at + 10 * minute);
    expect(await tick(at + 14 * minute)).toHaveLength(2);
    const again = await tick(at + 15 * minute);
    expect(again.map((alert) => alert.kind)).toStrictEqual(["failing", "recovered", "failing"]);
    expect(again[2]).toMatchObject({ since: new Date(at + 10 * minute).toISOString() });
  });

  it("each outage's dead leads are told, though an earlier outage's were within the interval", async () => {
    await leads("dead", at);
    expect((await told("dead", at)).map((alert) => alert.kind)).toStrictEqual(["failing", "dead"]);
    await deliverAll();
    await told("delivered", at + minute);
    await tick(at + 6 * minute);
    // A second outage 20 minutes later, whose lead dies at once.
    await leads("dead", at + 20 * minute);
    const kinds = (await told("dead", at + 20 * minute)).map((alert) => alert.kind);
    expect(kinds).toStrictEqual(["failing", "dead", "recovered", "dead"]);
  });

  it("a failing receiver whose last waiting lead is dropped is cleared at once for health, and told within the grace period", async () => {
    await leads("dead", at);
    await told("dead", at);
    const { db } = await database(readEnv());
    await db.deleteFrom("outbox").execute();
    await tick(at + minute);
    expect(await db.selectFrom("receivers").select("failing_since").execute()).toStrictEqual([{ failing_since: null }]);
    const said = await tick(at + 6 * minute);
    expect(said.map((alert) => alert.kind)).toStrictEqual(["failing", "dead", "recovered"]);
    expect(said[2]!.text).toBe(
      "Sous: waitlist: nothing waits for redelivery any more (failing since 2026-11-24 16:00 UTC; no delivery has succeeded since, the last waiting lead was dropped or sent elsewhere). The next lead will show whether the workflow works.",
    );
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
    vi.setSystemTime(at);
    noteOutcome(failing, { receiver: "waitlist", outcome: "held", env: readEnv() });
    await alertsSettled();
    const errors = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(errors).toStrictEqual([
      expect.objectContaining({ event: "alert_failed", kind: "held", form: "waitlist", message: "disk I/O error" }),
    ]);
  });

  it("a database alert whose settings no longer read is logged as failed, with why, not thrown", async () => {
    vi.stubEnv("ALERT_WEBHOOK_URL", "chat.example/hooks");
    noteStoreChange({ state: "down", since: at });
    noteStoreChange({ state: "up", since: at, now: at + minute });
    await alertsSettled();
    const errors = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(errors).toStrictEqual(
      ["database_down", "database_up"].map((kind) =>
        expect.objectContaining({ event: "alert_failed", kind, message: expect.stringContaining("ALERT_WEBHOOK_URL") }),
      ),
    );
    expect(chat.received.slice(seen)).toStrictEqual([]);
    // Its twin, the setting corrected: the same two changes are told.
    vi.stubEnv("ALERT_WEBHOOK_URL", `${chat.url}/hooks/alerts`);
    noteStoreChange({ state: "down", since: at });
    noteStoreChange({ state: "up", since: at, now: at + minute });
    await alertsSettled();
    expect(
      chat.received
        .slice(seen)
        .map((request) => (request.json as { kind: string }).kind)
        .sort(),
    ).toStrictEqual(["database_down", "database_up"]);
  });

  it("a review that cannot read a form's leads is logged for that form, and the next form is still reviewed", async () => {
    const store = await database(readEnv());
    await store.db
      .insertInto("receivers")
      .values(["contact", "waitlist"].map((form) => ({ form, failing_since: at, last_failure: null, probed_at: null })))
      .execute();
    await store.db
      .insertInto("outbox")
      .values(
        ["contact", "waitlist"].map((form) => ({
          id: `msg_${crypto.randomUUID()}`,
          receiver: form,
          dedupe_key: null,
          payload: "{}",
          state: "pending" as const,
          created_at: at,
          next_attempt_at: at + 10 * minute,
        })),
      )
      .execute();
    // The same database, but its leads cannot be read (a disk error on that table).
    const leadsUnreadable = {
      ...store,
      db: new Proxy(store.db, {
        get(db, key) {
          if (key === "selectFrom")
            return (table: "receivers") => {
              if (String(table).startsWith("outbox")) throw new Error("disk I/O error");
              return db.selectFrom(table);
            };
          const value: unknown = Reflect.get(db, key);
          return typeof value === "function" ? value.bind(db) : value;
        },
      }),
    } as typeof store;
    vi.setSystemTime(at + 20 * minute);
    await reviewReceivers(leadsUnreadable, readEnv());
    const errors = vi.mocked(console.error).mock.calls.map((call) => JSON.parse(String(call[0])) as { form: string });
    expect(errors.sort((a, b) => a.form.localeCompare(b.form))).toStrictEqual(
      ["contact", "waitlist"].map((form) =>
        expect.objectContaining({ event: "alert_failed", kind: "review", form, message: "disk I/O error" }),
      ),
    );
    // Its twin on the readable database: the same review tells of both receivers, failing for 20 minutes.
    expect((await tick(at + 20 * minute)).map((alert) => [alert.kind, alert.form]).sort()).toStrictEqual([
      ["failing", "contact"],
      ["failing", "waitlist"],
    ]);
  });
});

describe("docs/operating.md's alert table", () => {
  it("names every kind of alert the code can send, and none it cannot", async () => {
    const { readFile } = await import("node:fs/promises");
    const doc = await readFile("docs/operating.md", "utf8");
    const start = doc.indexOf("## Health and alerts");
    const section = doc.slice(start, doc.indexOf("\n## ", start + 1));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` +\| /gm)].map((match) => match[1]!);
    const source = await readFile("server/outbox/alert-store.ts", "utf8");
    const kinds = /export type AlertKind = ([^;]+);/
      .exec(source)![1]!
      .match(/"([a-z_]+)"/g)!
      .map((kind) => kind.slice(1, -1));
    expect(kinds.length).toBeGreaterThan(4);
    // The header row names the column.
    expect([...new Set(documented.slice(1))].sort()).toStrictEqual([...kinds].sort());
  });
});

describe("adviceFor: what the operator can do about a receiver's last answer", () => {
  it("names the one place each reason points to, with the receiver's own variables", () => {
    const cases: [string, string | null, string][] = [
      ["invitations", "status 401 signature", "INVITE_WEBHOOK_SECRET is not a secret the workflow checks"],
      ["waitlist", "status 401 unsigned", "WAITLIST_WEBHOOK_SECRET is not a secret the workflow checks"],
      ["contact", "status 401 stale", "more than 5 minutes off: check both servers' clocks"],
      ["waitlist", "status 503 twilio_refused 401", "Twilio refused the account's credentials"],
      ["invitations", "status 503 twilio_refused 403", "TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN"],
      ["waitlist", "status 503 twilio_refused 429", "Twilio refused the text (429)"],
      ["waitlist", "status 503 twilio_refused", "Twilio refused the text:"],
      ["waitlist", "status 503 twilio_unreachable", "n8n could not reach Twilio's API"],
      ["invitations", "status 503 twilio_not_configured", "set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM"],
      ["invitations", "status 404", "not published, or INVITE_WEBHOOK_URL is not its production URL"],
      ["contact", "status 403", "check CONTACT_WEBHOOK_AUTH_HEADER and CONTACT_WEBHOOK_SECRET"],
      ["waitlist", "status 401", "check WAITLIST_WEBHOOK_AUTH_HEADER and WAITLIST_WEBHOOK_SECRET"],
      ["waitlist", "timeout", "did not answer (timeout): check that n8n runs and that WAITLIST_WEBHOOK_URL reaches it"],
      ["invitations", "network", "did not answer (network)"],
      ["contact", "unready 200", "n8n was starting up and ran no workflow"],
      ["waitlist", "status 500", "Check the workflow."],
      ["waitlist", "status 503 twilio_lookup_failed", "Check the workflow."],
      ["waitlist", null, "Check the workflow."],
    ];
    for (const [receiver, failure, words] of cases)
      expect(adviceFor(receiver, failure), String(failure)).toContain(words);
    // None of the specific ones falls through to the generic line.
    expect(cases.slice(0, 15).map(([receiver, failure]) => adviceFor(receiver, failure))).not.toContain(
      "Check the workflow.",
    );
  });
});
