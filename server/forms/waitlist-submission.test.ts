import { beforeEach, describe, expect, it, vi } from "vitest";
import { idleState } from "@/lib/forms/form-state";
import { emptyWaitlistValues, waitlistMessages } from "@/lib/forms/waitlist";
import { forgetSignups, stubActionEnv, withoutDelivery, heldLeads } from "@/tests/support/action-env";
import { formData } from "@/tests/support/form-data";
import { whereLeads } from "@/tests/support/navigation";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { sendForm } from "@/server/forms/send-form";
import { consentStates } from "@/server/consent/consent-store";
import { renewConsent, revokeConsent } from "@/server/consent/consent-changes";
import { runTasks, taskNames } from "@/server/ops/scheduler";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { cookieJar } from "@/tests/support/request-headers";
import { listLeads, welcomeOf } from "@/server/outbox/outbox-store";
import { sourcesOf } from "./source-store";
import * as answerPace from "./answer-pace";

// The real pacing, watched: which answers it held, and for how long a delivery took.
vi.mock("./answer-pace", { spy: true });
// What the forms' components bind the action to (see useServerForm).
const joinWaitlist = (previous: unknown, data: FormData) => sendForm("waitlist", previous, data);

const m = waitlistMessages.invalid;
const receiver = setupWebhookReceiver();
let token = 0;

beforeEach(async () => {
  stubActionEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  // These tests reuse one phone number, each as its first sign-up; the limits and repeats have tests of their own.
  await forgetSignups();
  vi.stubEnv("RATE_LIMIT_PHONE_POINTS", "1000");
  vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1000");
});

function signup(overrides: Record<string, string> = {}, directive = "") {
  token += 1;
  return { name: `Ada Lovelace w${token} ${directive}`.trim(), phone: "(555) 123-4567", consent: "on", ...overrides };
}

const submit = (fields: Record<string, string>) => joinWaitlist(idleState(emptyWaitlistValues), formData(fields));

describe("the waitlist form delivering", () => {
  it("posts exactly {phone, name}, trimmed, and never the consent flag", async () => {
    const fields = signup();
    const state = await submit({ ...fields, name: `  ${fields.name} `, phone: " (555) 123-4567 " });

    expect(state.status).toBe("success");
    expect(state.values).toEqual(emptyWaitlistValues);
    const [request, ...more] = receiver.withName(fields.name);
    expect(more).toEqual([]);
    expect(request?.path).toBe("/hooks/waitlist");
    expect(request?.headers["content-type"]).toBe("application/json");
    // The number in E.164, as SMS tools want it.
    expect(request?.body).toBe(JSON.stringify({ phone: "+15551234567", name: fields.name }));
  });

  it.each([
    ["a 4xx answer", "[status=404]"],
    ["a 5xx answer", "[status=502]"],
    ["a redirect", "[redirect]"],
    ["a reset connection", "[reset]"],
    ["no answer within the deadline", "[hang]"],
  ])("fails on %s and keeps every value, the checkbox included", async (_label, directive) => {
    const fields = signup({}, directive);
    const state = await submit(fields);
    expect(state.status).toBe("failed");
    expect(state.values).toEqual({ name: fields.name, phone: fields.phone, consent: true });
  });
});

describe("the waitlist form validating", () => {
  it.each([
    ["name", { name: "A" }, m.name],
    ["name", { name: "  A  " }, m.name],
    ["name", { name: "A".repeat(101) }, m.nameTooLong],
    ["phone", { phone: "555-1234" }, m.phone],
    ["phone", { phone: "not a phone number" }, m.phone],
    ["phone", { phone: "call me maybe 5551234567" }, m.phone],
    ["phone", { phone: "(555) 123-456" }, m.phone],
    ["phone", { phone: "+1 555 123 4567 890 12" }, m.phone],
    // Only US and Canadian numbers (WAITLIST_PHONE_COUNTRIES): abroad is where pumping bills come from.
    ["phone", { phone: "+44 7911 123456" }, m.phone],
    ["phone", { phone: "+44 20 7946 0958" }, m.phone],
    ["phone", { phone: "+1 876 555 1234" }, m.phone],
    // Zero-width spaces do not make a name.
    ["name", { name: "\u200b\u200b" }, m.name],
  ])("refuses a bad %s with the spec's message and reaches no webhook", async (fieldName, override, message) => {
    const state = await withoutDelivery(
      receiver,
      () => submit(signup(override)),
      () => submit(signup()),
    );
    expect(state.status).toBe("invalid");
    expect(state.errors).toEqual({ [fieldName]: message });
  });

  it("refuses a sign-up without consent and reaches no webhook", async () => {
    const { name, phone } = signup();
    const fields = { name, phone };
    const before = receiver.received.length;
    const state = await submit(fields);
    expect(state.status).toBe("invalid");
    expect(state.errors).toEqual({ consent: m.consent });
    expect(state.values.consent).toBe(false);
    expect(receiver.received.length).toBe(before);
  });

  it("reports every bad field at once, and logs their names, not their values", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const state = await submit({ name: "", phone: "hello" });
    expect(state.errors).toEqual({ name: m.name, phone: m.phone, consent: m.consent });
    const line = JSON.parse(String(info.mock.calls.at(-1)?.[0]));
    expect(line).toMatchObject({ level: "info", event: "submission", form: "waitlist", outcome: "invalid" });
    expect(line.fields).toEqual(["name", "phone", "consent"]);
    expect(JSON.stringify(line)).not.toContain("hello");
  });

  it.each([
    ["(555) 123-4567", "+15551234567"],
    ["555-123-4567", "+15551234567"],
    ["+1 555 123 4567", "+15551234567"],
    ["1-555-123-4567", "+15551234567"],
    ["555.123.4567", "+15551234567"],
    ["+1 416 555 0199", "+14165550199"],
  ])("accepts the phone number %s and sends it as %s", async (phone, e164) => {
    const fields = signup({ phone });
    expect((await submit(fields)).status).toBe("success");
    expect(receiver.withName(fields.name)[0]?.json).toEqual({ phone: e164, name: fields.name });
  });

  it("takes control, format and line-break characters out of the name and phone", async () => {
    const fields = signup();
    const state = await submit({
      ...fields,
      name: `\u202e${fields.name}\u200b\n`,
      phone: "\ufeff(555)\u00ad 123-4567\r",
    });
    expect(state.status).toBe("success");
    expect(receiver.withName(fields.name)[0]?.body).toBe(JSON.stringify({ phone: "+15551234567", name: fields.name }));
  });

  it("echoes no more of a field than its length cap", async () => {
    const state = await submit(signup({ name: "A".repeat(1_000_000) }));
    expect(state.status).toBe("invalid");
    expect(state.values.name).toHaveLength(100);
  });
});

describe("where a sign-up came from", () => {
  const leadOf = async (name: string) =>
    (await listLeads(await database(readEnv()), { form: "waitlist" })).find((lead) => lead.payload?.includes(name))!;

  it("keeps the visit's first touch beside the lead, and the webhook's body stays {phone, name}", async () => {
    cookieJar.set("sous_touch", "source=instagram&medium=social&campaign=spring-launch&landing_page=%2F");
    const fields = signup();
    expect((await submit(fields)).status).toBe("success");
    expect(receiver.withName(fields.name)[0]?.body).toBe(JSON.stringify({ phone: "+15551234567", name: fields.name }));
    const lead = await leadOf(fields.name);
    expect((await sourcesOf(await database(readEnv()), [lead.id])).get(lead.id)).toStrictEqual({
      source: "instagram",
      medium: "social",
      campaign: "spring-launch",
      term: null,
      content: null,
      referrer: null,
      landing_page: "/",
    });
  });

  it("is direct without the cookie; a repeat of a number on the list adds no source", async () => {
    const fields = signup();
    await submit(fields);
    const lead = await leadOf(fields.name);
    const store = await database(readEnv());
    expect((await sourcesOf(store, [lead.id])).get(lead.id)?.source).toBe("direct");
    cookieJar.set("sous_touch", "source=newsletter");
    await submit(fields);
    expect((await sourcesOf(store, [lead.id])).get(lead.id)?.source).toBe("direct");
  });
});

describe("the welcome its workflow reports", () => {
  const leadOf = async (name: string) =>
    (await listLeads(await database(readEnv()), { form: "waitlist" })).find((lead) => lead.payload?.includes(name))!;

  it.each([
    ["texted", "[texted]", "texted", null, "texted"],
    ["refused with the carrier's code", "[refused=21614]", "texted:false", "21614", "refused"],
    ["nothing said of a text: not reported", "", null, null, "not reported"],
    ["a 503: failing", "[status=503]", null, null, "failing"],
  ] as const)("is kept as its answer says: %s", async (_label, directive, answer, code, welcome) => {
    const fields = signup({}, directive);
    await submit(fields);
    const lead = await leadOf(fields.name);
    expect([lead.answer, lead.carrier_code, welcomeOf(lead)]).toStrictEqual([answer, code, welcome]);
  });
});

describe("the waitlist form without a webhook URL", () => {
  it("keeps the sign-up, without consent, as a held lead in the database", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    const fields = signup();
    expect((await submit(fields)).status).toBe("success");
    const held = (await heldLeads("waitlist")).filter((lead) => lead.payload?.includes(fields.name));
    expect(held.map((lead) => JSON.parse(lead.payload ?? ""))).toEqual([{ phone: "+15551234567", name: fields.name }]);
  });
});

describe("sendForm with a name the site has no form for", () => {
  it("refuses the post and sends nothing, where the same post under the waitlist's name is sent", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const fields = signup();
    const refused = await sendForm("catering", idleState(emptyWaitlistValues), formData(fields));
    expect(refused).toMatchObject({ status: "failed", values: {}, errors: {} });
    expect(receiver.withName(fields.name)).toHaveLength(0);
    expect(warn.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual(
      expect.objectContaining({ event: "submission", outcome: "unknown_form" }),
    );

    expect((await submit(fields)).status).toBe("success");
    expect(receiver.withName(fields.name)).toHaveLength(1);
  });
});

describe("the waitlist form when the server's settings are broken", () => {
  it("tells the visitor it failed, keeps what they typed, and logs the error without their data", async () => {
    vi.stubEnv("WEBHOOK_DEADLINE_MS", "soon");
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const fields = signup();
    const state = await submit(fields);
    expect(state).toMatchObject({
      status: "failed",
      values: { name: fields.name, phone: fields.phone, consent: true },
    });
    const lines = error.mock.calls.map(([line]) => String(line));
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.event === "submission");
    expect(logged).toMatchObject({
      form: "waitlist",
      outcome: "error",
      error: expect.stringMatching(/^EnvError: .*WEBHOOK_DEADLINE_MS/),
    });
    expect(lines.join("\n")).not.toContain(fields.name);
    expect(receiver.withName(fields.name)).toHaveLength(0);

    // The settings mended, the same sign-up goes through once.
    vi.stubEnv("WEBHOOK_DEADLINE_MS", "9000");
    expect((await submit(fields)).status).toBe("success");
    expect(receiver.withName(fields.name)).toHaveLength(1);
  });
});

describe("a number on the list already", () => {
  const phone = "(555) 123-4567";
  const recordsOf = async () => {
    const { db } = await database(readEnv());
    return db.selectFrom("consents").select("lead_id").where("phone", "=", "+15551234567").execute();
  };

  it("is welcomed once: a repeat of a delivered number is told it succeeded, and its consent is kept as evidence of that lead", async () => {
    const first = signup({ phone });
    const began = performance.now();
    expect((await submit(first)).status).toBe("success");
    const took = performance.now() - began;
    // The working twin: the first sign-up reached the workflow, and its time is noted; its answer was not held.
    expect(receiver.withName(first.name)).toHaveLength(1);
    expect(answerPace.noteDelivered).toHaveBeenCalledWith("waitlist", expect.any(Number));
    const noted = vi.mocked(answerPace.noteDelivered).mock.calls[0]![1];
    expect(noted).toBeGreaterThan(0);
    expect(noted).toBeLessThanOrEqual(took);
    expect(answerPace.paceLikeDelivery).not.toHaveBeenCalled();
    const repeats = [signup({ phone }), signup({ phone: "555.123.4567" }), signup({ phone: "+1 555 123 4567" })];
    for (const repeat of repeats) {
      const state = await submit(repeat);
      expect(state.status).toBe("success");
      expect(state.values).toEqual(emptyWaitlistValues);
      expect(receiver.withName(repeat.name)).toEqual([]);
    }
    // Each repeat's answer was held as long as a delivery takes, within the visitor's deadline.
    expect(vi.mocked(answerPace.paceLikeDelivery).mock.calls).toStrictEqual(
      repeats.map(() => ["waitlist", expect.any(Number), readEnv().WEBHOOK_DEADLINE_MS]),
    );
    expect(answerPace.noteDelivered).toHaveBeenCalledTimes(1);
    const records = await recordsOf();
    expect(records).toHaveLength(4);
    expect(new Set(records.map((record) => record.lead_id)).size).toBe(1);
    const { db } = await database(readEnv());
    expect(await db.selectFrom("outbox").select("state").execute()).toStrictEqual([{ state: "delivered" }]);
  });

  it("past the texts budget, is kept and answered as a delivered sign-up is: success, held as long as a delivery takes", async () => {
    vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1");
    await (await database(readEnv())).db.deleteFrom("outbox_pace").execute();
    const [first, second] = [signup(), signup({ phone: "(555) 123-4568" })];
    expect((await submit(first)).status).toBe("success");
    expect(answerPace.paceLikeDelivery).not.toHaveBeenCalled();
    const state = await submit(second);
    expect(state).toMatchObject({ status: "success", values: emptyWaitlistValues });
    expect(receiver.withName(second.name)).toEqual([]);
    expect(vi.mocked(answerPace.paceLikeDelivery).mock.calls).toStrictEqual([
      ["waitlist", expect.any(Number), readEnv().WEBHOOK_DEADLINE_MS],
    ]);
    const { db } = await database(readEnv());
    const rows = await db.selectFrom("outbox").select(["state", "attempts"]).orderBy("created_at").execute();
    expect(rows).toStrictEqual([
      { state: "delivered", attempts: 1 },
      { state: "pending", attempts: 0 },
    ]);
  });

  it("a repeat while its lead still waits sends that lead, under its one webhook-id, not a second", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    // Refused for its first three attempts: the visitor's try and its two retries.
    const first = signup({ phone }, "[fail=3]");
    expect((await submit(first)).status).toBe("failed");
    const again = signup({ phone });
    expect((await submit(again)).status).toBe("success");
    // What reached the workflow is the first sign-up's lead, sent again.
    const ids = new Set(receiver.withName(first.name).map((request) => request.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    expect(receiver.withName(again.name)).toEqual([]);
    expect(receiver.withName(first.name).at(-1)?.answered).toBe(200);
    const { db } = await database(readEnv());
    expect(await db.selectFrom("outbox").select("state").execute()).toStrictEqual([{ state: "delivered" }]);
  });

  it("a repeat while its lead is dead (its schedule spent) sends that lead again, under its one webhook-id", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    const first = signup({ phone }, "[fail=3]");
    expect((await submit(first)).status).toBe("failed");
    // As the passes leave it once its redelivery schedule ran out.
    const { db } = await database(readEnv());
    await db.updateTable("outbox").set({ state: "dead" }).execute();
    const again = signup({ phone });
    expect((await submit(again)).status).toBe("success");
    expect(new Set(receiver.withName(first.name).map((request) => request.headers["webhook-id"])).size).toBe(1);
    expect(receiver.withName(first.name).at(-1)?.answered).toBe(200);
    expect(receiver.withName(again.name)).toEqual([]);
    expect(await db.selectFrom("outbox").select("state").execute()).toStrictEqual([{ state: "delivered" }]);
  });

  it("a STOP while a web sign-up awaits a START revokes that sign-up too: its values go, and the START sends nothing", async () => {
    const first = signup({ phone });
    expect((await submit(first)).status).toBe("success");
    const store = await database(readEnv());
    await revokeConsent(store, { phone: "+15551234567", channel: "email", source: "operator" });
    const stranger = signup({ phone });
    expect((await submit(stranger)).status).toBe("success");
    const [waiting] = await store.db.selectFrom("outbox").select("id").where("state", "=", "awaiting_start").execute();
    expect(waiting).toBeDefined();

    await revokeConsent(store, { phone: "+15551234567", channel: "sms", source: "workflow", messageId: "SM-stop-2" });
    expect(
      await store.db.selectFrom("outbox").select(["state", "payload"]).where("id", "=", waiting!.id).execute(),
    ).toStrictEqual([{ state: "revoked", payload: null }]);
    expect(await renewConsent(store, { phone: "+15551234567", messageId: "SM-start-2" })).toMatchObject({
      recorded: true,
      leadsReleased: 0,
    });
    await runTasks(taskNames, { via: "timer" });
    expect(receiver.withName(stranger.name)).toEqual([]);
  });

  it("a revoked number's web sign-up is evidence only: nothing sent, consent still revoked, until the phone texts START; then it is sent once", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    const first = signup({ phone });
    expect((await submit(first)).status).toBe("success");
    const store = await database(readEnv());
    await revokeConsent(store, { phone: "+15551234567", channel: "email", source: "operator" });

    // Anyone can type a number: two web sign-ups of it put nothing back in force and send nothing.
    const strangers = [signup({ phone }), signup({ phone: "555.123.4567" })];
    for (const stranger of strangers) {
      const state = await submit(stranger);
      // Answered as any sign-up is, and held as long: nothing in the answer says the number once replied STOP.
      expect(state.status).toBe("success");
      expect(answerPace.paceLikeDelivery).toHaveBeenLastCalledWith("waitlist", expect.any(Number), expect.any(Number));
      expect(state.values).toEqual(emptyWaitlistValues);
      expect(receiver.withName(stranger.name)).toEqual([]);
    }
    expect((await consentStates(store, ["+15551234567"])).get("+15551234567")).toBe("revoked");
    const waiting = await store.db
      .selectFrom("outbox")
      .select(["id", "state"])
      .where("state", "=", "awaiting_start")
      .execute();
    expect(waiting).toHaveLength(1);
    const records = await store.db
      .selectFrom("consents")
      .select(["lead_id", "puts_in_force"])
      .where("consented_at", ">", 0)
      .orderBy("consented_at")
      .execute();
    expect(records.slice(1)).toStrictEqual([
      { lead_id: waiting[0]!.id, puts_in_force: 0 },
      { lead_id: waiting[0]!.id, puts_in_force: 0 },
    ]);

    // The phone texts START (the workflow's signed call): consent in force, the waiting sign-up sent, once.
    expect(await renewConsent(store, { phone: "+15551234567", messageId: "SM-start-1" })).toMatchObject({
      recorded: true,
      leadsReleased: 1,
    });
    expect(await renewConsent(store, { phone: "+15551234567", messageId: "SM-start-1" })).toMatchObject({
      recorded: false,
      leadsReleased: 0,
    });
    expect((await consentStates(store, ["+15551234567"])).get("+15551234567")).toBe("in force");
    await runTasks(taskNames, { via: "timer" });
    await runTasks(taskNames, { via: "timer" });
    expect(receiver.withName(strangers[0]!.name)).toHaveLength(1);
    expect(receiver.withName(strangers[0]!.name)[0]!.headers["webhook-id"]).toBe(waiting[0]!.id);
    expect(receiver.withName(strangers[1]!.name)).toEqual([]);

    // Back on the list: a further sign-up of it is a repeat, welcomed no more.
    const later = signup({ phone });
    expect((await submit(later)).status).toBe("success");
    expect(receiver.withName(later.name)).toEqual([]);
  });

  it("a number that texted START before signing up again is welcomed again: its sign-up since the revocation is a new lead", async () => {
    const first = signup({ phone });
    expect((await submit(first)).status).toBe("success");
    const store = await database(readEnv());
    const now = Date.now();
    await revokeConsent(store, { phone: "+15551234567", channel: "sms", source: "workflow", at: now - 2 });
    await renewConsent(store, { phone: "+15551234567", messageId: "SM-start-2", at: now - 1 });
    const rejoined = signup({ phone });
    expect((await submit(rejoined)).status).toBe("success");
    expect(receiver.withName(rejoined.name)).toHaveLength(1);
  });
});

describe("a post the browser made without JavaScript", () => {
  it("ends in a redirect to the form's result page once it went through, so a reload posts nothing", async () => {
    const fields = signup();
    expect(await whereLeads(joinWaitlist(idleState(emptyWaitlistValues), formData(fields, { script: false })))).toBe(
      "/sent/waitlist",
    );
    expect(receiver.withName(fields.name)).toHaveLength(1);
    // Its twin, sent by the page's script: the answer comes back to the page.
    const scripted = signup({ phone: "(555) 123-4568" });
    expect((await submit(scripted)).status).toBe("success");
  });

  it("a revoked number's sign-up lands on the one result page every kept sign-up lands on", async () => {
    const fields = signup({ phone: "(555) 123-4569" });
    // Its twin first: a new number.
    expect(await whereLeads(joinWaitlist(idleState(emptyWaitlistValues), formData(fields, { script: false })))).toBe(
      "/sent/waitlist",
    );
    const store = await database(readEnv());
    await revokeConsent(store, { phone: "+15551234569", channel: "sms", source: "operator" });
    const again = signup({ phone: "(555) 123-4569" });
    expect(await whereLeads(joinWaitlist(idleState(emptyWaitlistValues), formData(again, { script: false })))).toBe(
      "/sent/waitlist",
    );
  });

  it("renders every other outcome inline, with what the visitor typed", async () => {
    const fields = signup({ name: "" });
    const state = await joinWaitlist(idleState(emptyWaitlistValues), formData(fields, { script: false }));
    expect(state).toMatchObject({ status: "invalid", values: { phone: fields.phone, consent: true } });
  });
});
