import { describe, expect, it, vi } from "vitest";
import { database, inTransaction, type Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { recordConsent } from "@/server/consent/consent-store";
import { newClaim, insertLead } from "@/server/outbox/outbox-store";
import { toCsv } from "@/server/console/csv";
import { consentExport, invitationExport, leadExport, leftOutOf, leftOutWords } from "@/server/console/exports";
import { queueWave } from "@/server/invitations/waves";
import { activityPage } from "@/server/operators/activity-store";
import { revokeConsent } from "@/server/consent/consent-changes";
import { waitlistLead, webConsent } from "@/tests/support/waitlist-lead";
import { leadStates } from "@/server/db/schema";
import { signedInAs } from "@/tests/support/console-store";
import { download, downloads, isDownload } from "./downloads";

/** A web sign-up as a visitor's is kept: the lead and its consent record. */
async function signUp(store: Store, phone: string, at: number) {
  const lead = { ...waitlistLead(phone), payload: JSON.stringify({ phone, name: `Chef ${at}` }) };
  await inTransaction(store, async (tx) => {
    await insertLead(tx, lead, newClaim(0));
    await recordConsent(tx, { evidence: webConsent(phone), leadId: lead.id, at });
  });
}

/** This file's database: three numbers, one signed up twice, one revoked, two invited; a quote request. */
async function filled() {
  const store = await database(readEnv());
  if ((await store.db.selectFrom("outbox").select("id").execute()).length === 0) {
    await signUp(store, "+14155550101", 1_000);
    await signUp(store, "+14155550102", 2_000);
    await signUp(store, "+14155550101", 3_000);
    await signUp(store, "+14155550103", 4_000);
    await revokeConsent(store, { phone: "+14155550103", channel: "sms", source: "workflow", at: 5_000 });
    // Their welcomes texted, as a wave asks.
    await store.db
      .updateTable("outbox")
      .set({ state: "delivered", answer: "texted" })
      .where("state", "=", "pending")
      .execute();
    await queueWave(store, { name: "first", selection: { next: 2 }, text: () => "Hi", now: 6_000 });
    const quote = { name: "Julia", email: "julia@example.com", message: "=1+1, and more" };
    await insertLead(store, waitlistLead("+1", { receiver: "contact", state: "held", payload: JSON.stringify(quote) }));
  }
  return store;
}

/** What the matching commands export. */
const commands = (store: Store) => ({
  waitlist: () => leadExport(store, { form: "waitlist", states: [...leadStates] }),
  quotes: () => leadExport(store, { form: "contact", states: [...leadStates] }),
  consents: () => consentExport(store),
  invitations: () => invitationExport(store),
});

const owner = (store: Store) => signedInAs(store, "owner@sous.example");
const lines = (csv: string) => csv.split("\r\n").filter(Boolean);

describe("a console download", () => {
  it("is a CSV attachment named for what it holds and the day, kept by no cache", async () => {
    const store = await filled();
    vi.setSystemTime(new Date("2026-12-03T23:59:00Z"));
    const answer = await download(await owner(store), "waitlist");
    expect(answer.status).toBe(200);
    expect(Object.fromEntries(answer.headers)).toStrictEqual({
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="sous-waitlist-2026-12-03.csv"',
      "cache-control": "no-store",
    });
    vi.setSystemTime(new Date("2026-01-02T00:00:00Z"));
    const named = await download(await owner(store), "invitations");
    expect(named.headers.get("content-disposition")).toBe('attachment; filename="sous-invitations-2026-01-02.csv"');
  });

  it("holds what the matching command exports, and writes who, what and how many rows to the activity", async () => {
    const store = await filled();
    const made = commands(store);
    // Each number once on the waitlist, the revoked one's values gone with its STOP (2); every consent record
    // and the revocation (4 + 1); each invitation (2).
    const counts = { waitlist: 2, quotes: 1, consents: 5, invitations: 2 };
    for (const name of ["waitlist", "quotes", "consents", "invitations"] as const) {
      const exported = await made[name]();
      expect(exported.rows, name).toHaveLength(counts[name]);
      const csv = await (await download(await owner(store), name)).text();
      expect(csv, name).toBe(toCsv(exported.columns, exported.rows));
      expect(lines(csv), name).toHaveLength(counts[name] + 1);
      const [line] = await activityPage(store, { limit: 1 });
      expect(line, name).toMatchObject({
        actor: "owner@sous.example",
        via: "console",
        action: "export",
        subject: downloads[name].kind,
        rows: counts[name],
      });
    }
    expect(Object.values(downloads).map(({ kind }) => kind)).toStrictEqual([
      "waitlist leads",
      "quote requests",
      "consent records",
      "invitations",
    ]);
  });

  it("says what each export of leads leaves out and why: the console by counting, the export by reading, alike", async () => {
    const store = await filled();
    const stopped = { stopped: 1, retention: 0 };
    expect(await leftOutOf(store, "waitlist")).toStrictEqual(stopped);
    expect((await commands(store).waitlist()).leftOut).toStrictEqual(stopped);
    expect(leftOutWords(stopped)).toBe(
      "Left out: 1 whose number texted STOP before delivery (its values were never kept).",
    );
    // Its twin: the quote request keeps its values, and nothing is left out.
    expect(await leftOutOf(store, "contact")).toStrictEqual({ stopped: 0, retention: 0 });
    expect(leftOutWords({ stopped: 0, retention: 0 })).toBe("Nothing left out.");
    // Past retention, and not in force under --consented: each said with its count.
    await store.db.updateTable("outbox").set({ payload: null }).where("receiver", "=", "contact").execute();
    expect(await leftOutOf(store, "contact")).toStrictEqual({ stopped: 0, retention: 1 });
    expect(leftOutWords({ stopped: 1, retention: 2, notInForce: 3 })).toBe(
      "Left out: 1 whose number texted STOP before delivery (its values were never kept); 2 past the retention period (values removed after delivery); 3 whose consent is not in force.",
    );
  });

  it("names the four downloads and nothing an object holds of its own", () => {
    expect(Object.keys(downloads).filter(isDownload)).toStrictEqual(["waitlist", "quotes", "consents", "invitations"]);
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) expect(isDownload(name)).toBe(false);
    for (const { label } of Object.values(downloads)) expect(label).toMatch(/^The [a-z].+[a-z]$/);
  });
});
