import { createHash } from "node:crypto";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { consentFieldNames } from "@/lib/forms/consent";
import { idleState } from "@/lib/forms/form-state";
import { honeypotName } from "@/lib/forms/honeypot";
import { emptyWaitlistValues, waitlistFields } from "@/lib/forms/waitlist";
import { closeDatabases, database } from "@/server/db/connect";
import { leadById } from "@/server/outbox/outbox-store";
import { readEnv } from "@/server/env";
import { stubActionEnv } from "@/tests/support/action-env";
import { formData } from "@/tests/support/form-data";
import { pinRequestHeaders } from "@/tests/support/request-headers";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { consentRecords } from "./consent-store";
import { disclosureOf } from "./disclosure";
import { sendForm } from "@/server/forms/send-form";
// What the forms' components bind the action to (see useServerForm).
const joinWaitlist = (previous: unknown, data: FormData) => sendForm("waitlist", previous, data);

const receiver = setupWebhookReceiver();
const shown = disclosureOf(waitlistFields.consent.label);
// The version as a carrier's auditor would recompute it, apart from the code that made it: sha256 of the exact words, hex.
const independentVersion = createHash("sha256").update(Buffer.from(waitlistFields.consent.label, "utf8")).digest("hex");
const browser = "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0 Safari/537.36";
let token = 0;

beforeEach(() => {
  stubActionEnv("WAITLIST_WEBHOOK_URL", `${receiver.url}/hooks/waitlist`);
  vi.stubEnv("RATE_LIMIT_PHONE_POINTS", "1000");
  vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1000");
  // The site's address: a consent record keeps the page only on its host.
  vi.stubEnv("SITE_URL", "https://sous.example");
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

/** A sign-up from its own number, sent the way the page sends it: with the consent text's version, by script or not. */
function signup(directive = "", javascript = true) {
  token += 1;
  const line = String(200 + token).padStart(3, "0");
  const fields = {
    name: `Ada Consent c${token}x${Date.now()} ${directive}`.trim(),
    phone: `(555) ${line}-4567`,
    consent: "on",
    [consentFieldNames.disclosure]: shown.version,
    [consentFieldNames.javascript]: javascript ? "1" : "0",
  };
  return { fields, e164: `+1555${line}4567` };
}

function from(address: string, extra: Record<string, string> = {}) {
  pinRequestHeaders({
    "x-forwarded-for": address,
    "user-agent": browser,
    // The site's own host, as the browser names it in every request.
    host: "sous.example",
    referer: "https://sous.example/signup?utm_source=ig",
    ...extra,
  });
}

const submit = (fields: Record<string, string>) => joinWaitlist(idleState(emptyWaitlistValues), formData(fields));
const historyOf = async (phone: string) => consentRecords(await database(readEnv()), { phone });

describe("a consent record", () => {
  /** The record as the test expects it, every field: the time is the clock the test set. */
  const recordOf = (
    e164: string,
    leadId: string | undefined,
    at: number,
    fields: { ip: string; page_url: string; javascript: 0 | 1 },
  ) => ({
    id: expect.stringMatching(/^con_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    phone: e164,
    consented_at: at,
    user_agent: browser,
    lead_id: leadId,
    disclosure_version: independentVersion,
    disclosure_text: waitlistFields.consent.label,
    puts_in_force: 1,
    ...fields,
  });

  it("is kept for a sign-up sent by the page's JavaScript, with the request's address, browser and page, and the text shown", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    const at = Date.parse("2026-11-25T09:30:15.250Z");
    vi.useFakeTimers({ toFake: ["Date"], now: at });
    const { fields, e164 } = signup();
    from("203.0.113.7");
    expect((await submit(fields)).status).toBe("success");
    vi.useRealTimers();

    const { consents } = await historyOf(e164);
    // The record names the lead the workflow received, by its webhook-id.
    const [request] = receiver.withName(fields.name);
    expect(request?.headers["webhook-id"]).toMatch(/^msg_/);
    expect(consents).toStrictEqual([
      recordOf(e164, request?.headers["webhook-id"] as string, at, {
        ip: "203.0.113.7",
        page_url: "https://sous.example/signup?utm_source=ig",
        javascript: 1,
      }),
    ]);
  });

  it("is kept for a sign-up the browser posted itself, JavaScript off, with the address the rate limiter counts", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", newWebhookSecret());
    const at = Date.parse("2026-11-25T09:31:00.000Z");
    vi.useFakeTimers({ toFake: ["Date"], now: at });
    const { fields, e164 } = signup("", false);
    // Behind one trusted proxy: the right-most entry, not what the client wrote on the left.
    from("10.9.9.9, 198.51.100.23", { referer: "", origin: "https://sous.example" });
    expect((await submit(fields)).status).toBe("success");
    vi.useRealTimers();
    const { consents } = await historyOf(e164);
    const [request] = receiver.withName(fields.name);
    expect(consents).toStrictEqual([
      recordOf(e164, request?.headers["webhook-id"] as string, at, {
        ip: "198.51.100.23",
        page_url: "https://sous.example/signup",
        javascript: 0,
      }),
    ]);
  });

  it("leaves the webhook's body exactly {phone, name}", async () => {
    const { fields, e164 } = signup();
    from("203.0.113.8");
    await submit(fields);
    expect(receiver.withName(fields.name).map((request) => request.body)).toStrictEqual([
      JSON.stringify({ phone: e164, name: fields.name }),
    ]);
  });

  it("is kept when the workflow answers 503: consent was given whether or not it answered", async () => {
    const { fields, e164 } = signup("[status=503]");
    from("203.0.113.9");
    expect((await submit(fields)).status).toBe("failed");
    const { consents } = await historyOf(e164);
    expect(consents).toHaveLength(1);
    expect(await leadById(await database(readEnv()), consents[0]!.lead_id)).toMatchObject({ state: "pending" });
  });

  it("outlives the server: a new connection, as after a restart, reads it back", async () => {
    const { fields, e164 } = signup();
    from("203.0.113.10");
    await submit(fields);
    await closeDatabases();
    expect((await historyOf(e164)).consents).toHaveLength(1);
  });

  it("is one per accepted sign-up: the same values sent again are one lead with two records", async () => {
    const { fields, e164 } = signup("[status=503]");
    from("203.0.113.11");
    await submit(fields);
    await submit(fields);
    const { consents } = await historyOf(e164);
    expect(consents).toHaveLength(2);
    expect(consents[0]!.lead_id).toBe(consents[1]!.lead_id);
  });

  it.each([
    ["a post the schema refuses", { consent: "" }],
    ["a post the honeypot catches", { [honeypotName]: "https://spam.example" }],
  ])("is not kept for %s", async (_label, overrides) => {
    const { fields, e164 } = signup();
    from("203.0.113.12");
    await submit({ ...fields, ...overrides });
    expect((await historyOf(e164)).consents).toStrictEqual([]);
    expect(receiver.withName(fields.name)).toStrictEqual([]);
    // The same post as it should be is kept and delivered: the test could see a record.
    expect((await submit(fields)).status).toBe("success");
    expect((await historyOf(e164)).consents).toHaveLength(1);
    expect(receiver.withName(fields.name)).toHaveLength(1);
  });

  it("is not kept for a post a limit refuses", async () => {
    vi.stubEnv("RATE_LIMIT_PHONE_POINTS", "1");
    const first = signup();
    from("203.0.113.13");
    expect((await submit(first.fields)).status).toBe("success");
    const again = { ...first.fields, name: `${first.fields.name} again` };
    expect((await submit(again)).status).toBe("rate_limited");
    expect((await historyOf(first.e164)).consents).toHaveLength(1);
  });

  it("names the version the page posted when the database holds it, and the text in force otherwise", async () => {
    const store = await database(readEnv());
    const older = disclosureOf("An older consent text, shown before the copy changed.");
    await store.db
      .insertInto("disclosures")
      .values({ ...older, first_recorded_at: 1 })
      .execute();

    const stale = signup();
    from("203.0.113.14");
    await submit({ ...stale.fields, [consentFieldNames.disclosure]: older.version });
    expect((await historyOf(stale.e164)).consents[0]).toMatchObject({
      disclosure_version: older.version,
      disclosure_text: older.text,
    });

    const forged = signup();
    await submit({ ...forged.fields, [consentFieldNames.disclosure]: "f".repeat(64) });
    expect((await historyOf(forged.e164)).consents[0]).toMatchObject({ disclosure_version: shown.version });
    // The text in force is stored once, however many records name it.
    expect(
      await store.db.selectFrom("disclosures").select("version").where("version", "=", shown.version).execute(),
    ).toHaveLength(1);
  });

  it("that cannot be written gives the visitor's address its point back: nothing was sent", async () => {
    const home = process.env.DATA_DIR!;
    vi.stubEnv("RATE_LIMIT_FORM_POINTS", "1");
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    from("203.0.113.16");
    const refused = [signup(), signup()];
    for (const { fields } of refused) {
      // "failed", not "rate_limited": the first refusal gave its point back.
      expect((await submit(fields)).status).toBe("failed");
      expect(receiver.withName(fields.name)).toStrictEqual([]);
    }
    // The database answers again: the address still has its one point, and the same visitor's sign-up goes through.
    vi.stubEnv("DATA_DIR", home);
    const { fields } = signup();
    expect((await submit(fields)).status).toBe("success");
    expect(receiver.withName(fields.name)).toHaveLength(1);
    // That used the point: the next one is refused by the limit, not the database.
    expect((await submit(signup().fields)).status).toBe("rate_limited");
  });

  it("cannot be written when the database fails, so the number is not texted and the visitor is told to try again", async () => {
    const home = process.env.DATA_DIR!;
    vi.stubEnv("DATA_DIR", `${import.meta.filename}/no-folder-inside-a-file`);
    const { fields } = signup();
    from("203.0.113.15");
    const state = await submit(fields);
    expect(state.status).toBe("failed");
    expect(state.values).toMatchObject({ name: fields.name, consent: true });
    expect(receiver.withName(fields.name)).toStrictEqual([]);
    const failed = vi
      .mocked(console.error)
      .mock.calls.map((call) => JSON.parse(String(call[0])))
      .filter((line) => line.event === "submission");
    expect(failed).toStrictEqual([
      expect.objectContaining({
        outcome: "failed",
        via: "webhook",
        reason: "unrecorded",
        attempts: 0,
        durationMs: expect.any(Number),
      }),
    ]);

    // The database answers again: the same sign-up is kept with its consent and delivered.
    vi.stubEnv("DATA_DIR", home);
    expect((await submit(fields)).status).toBe("success");
    expect(receiver.withName(fields.name)).toHaveLength(1);
  });
});
