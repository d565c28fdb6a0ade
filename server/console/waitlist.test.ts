import { forgetConsents, updateInvitations } from "@/tests/support/lead-rows";
import { describe, expect, it } from "vitest";
import { inTransaction, type Store } from "@/server/db/connect";
import { forgetOldConsents, recordConsent } from "@/server/consent/consent-store";
import { newClaim, dropLead, insertLead } from "@/server/outbox/outbox-store";
import { revokeConsent, renewConsent } from "@/server/consent/consent-changes";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead, webConsent } from "@/tests/support/waitlist-lead";
import { recordSource, sourceNames } from "@/server/forms/source-store";
import { touchOf } from "@/server/web/visits";
import { chefOf, sourceWords, viewersShare } from "./chef";
import { queueWave } from "@/server/invitations/waves";
import type { InvitationRow } from "@/server/invitations/invitation-store";
import {
  consentWords,
  invitationWords,
  maskedPhone,
  PAGE_SIZE,
  SearchError,
  waitlistPage,
  welcomeFilters,
} from "./waitlist";

const engines = setupBothEngines();

/** The file's database with no sign-up, consent or lead left by a test before. */
async function open(engine: "sqlite" | "postgres") {
  const store = await engines(engine);
  await forgetConsents(store.db);
  await store.db.deleteFrom("outbox").execute();
  return store;
}

/** A web sign-up, as a visitor's is kept: the lead with its name, and its consent record. */
async function signUp(store: Store, phone: string, at: number, name = `Chef ${at}`) {
  const lead = { ...waitlistLead(phone), payload: JSON.stringify({ phone, name }) };
  await inTransaction(store, async (tx) => {
    await insertLead(tx, lead, newClaim(0));
    await recordConsent(tx, { evidence: webConsent(phone), leadId: lead.id, at });
  });
  return lead;
}

/** Every waiting welcome texted: a wave invites only numbers whose welcome was. */
const welcomeTexted = (store: Store) =>
  store.db.updateTable("outbox").set({ state: "delivered", answer: "texted" }).where("state", "=", "pending").execute();

let operators = 0;
/** An operator of their own per read: the console counts each operator's searches. */
const operator = (role: "owner" | "viewer") => ({ id: `op_search_${Date.now()}_${(operators += 1)}`, role });
const owner = () => operator("owner");

const phones = (page: Awaited<ReturnType<typeof waitlistPage>>) => page.rows.map((row) => row.phone);
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "accepted",
    (error: Error) => (error instanceof SearchError ? error.message : `not a refusal: ${error.stack}`),
  );

describe.each(["sqlite", "postgres"] as const)("the console's waitlist on %s", (engine) => {
  it("filters by invitation: none at all, or one in a state; with the consent filter at once", async () => {
    const store = await open(engine);
    await store.db.deleteFrom("outbox").where("receiver", "=", "invitations").execute();
    await store.db.deleteFrom("invitations").execute();
    await store.db.deleteFrom("invitation_waves").execute();
    await signUp(store, "+14155550101", 1_000);
    await signUp(store, "+14155550102", 2_000);
    await signUp(store, "+14155550103", 3_000);
    // The wave takes the oldest two; the first is texted, the second still queued.
    await welcomeTexted(store);
    await queueWave(store, { name: "first", selection: { next: 2 }, text: () => "Hi", now: 4_000 });
    await updateInvitations(store.db, { state: "texted" }, { phone: "+14155550101" });
    const invited = async (invitation: Parameters<typeof waitlistPage>[2]["invitation"]) =>
      phones(await waitlistPage(store, owner(), { invitation }));
    expect(await invited("texted")).toStrictEqual(["+14155550101"]);
    expect(await invited("queued")).toStrictEqual(["+14155550102"]);
    expect(await invited("not invited")).toStrictEqual(["+14155550103"]);
    expect(await invited("cancelled")).toStrictEqual([]);
    expect(await invited("any")).toStrictEqual(["+14155550103", "+14155550102", "+14155550101"]);
    await revokeConsent(store, { phone: "+14155550102", channel: "sms", source: "workflow", at: 5_000 });
    expect(phones(await waitlistPage(store, owner(), { filter: "revoked", invitation: "queued" }))).toStrictEqual([
      "+14155550102",
    ]);
    expect(phones(await waitlistPage(store, owner(), { filter: "in force", invitation: "queued" }))).toStrictEqual([]);
    expect((await waitlistPage(store, owner(), { invitation: "not invited", search: "4155550103" })).total).toBe(1);
  });

  it("reads each number's welcome from its latest sign-up's lead, and filters by it in SQL as the rows read it", async () => {
    const store = await open(engine);
    const cases = [
      ["+14155550201", { state: "delivered", answer: "texted" }, "texted"],
      [
        "+14155550202",
        { state: "delivered", answer: "texted:false", carrier_code: "21614" },
        "refused: not a mobile number",
      ],
      ["+14155550203", { state: "delivered" }, "not reported"],
      ["+14155550204", { state: "pending", attempts: 2 }, "failing"],
      ["+14155550205", { state: "dead", attempts: 9 }, "failing"],
      ["+14155550206", { state: "held" }, "waiting: no workflow connected"],
      ["+14155550207", { state: "pending" }, "waiting"],
      ["+14155550208", { state: "awaiting_release" }, "waiting for an owner's release"],
      ["+14155550209", { state: "revoked" }, "not sent: consent ended first"],
    ] as const;
    for (const [index, [phone, change]] of cases.entries()) {
      const lead = await signUp(store, phone, 1_000 + index);
      await store.db.updateTable("outbox").set(change).where("id", "=", lead.id).execute();
    }
    // Texted once, then a later sign-up kept waiting for a START: the later one is the number's welcome now.
    const earlier = await signUp(store, "+14155550210", 2_000);
    await store.db
      .updateTable("outbox")
      .set({ state: "delivered", answer: "texted" })
      .where("id", "=", earlier.id)
      .execute();
    const later = { ...waitlistLead("+14155550210"), state: "awaiting_start" as const, created_at: 3_000 };
    await insertLead(store, later);
    await recordConsent(store, { evidence: webConsent("+14155550210"), leadId: later.id, at: 3_000 });

    const rows = (await waitlistPage(store, owner(), {})).rows;
    const words = new Map(rows.map((row) => [row.phone, row.welcome]));
    expect(Object.fromEntries(words)).toStrictEqual({
      ...Object.fromEntries(cases.map(([phone, , welcome]) => [phone, welcome])),
      "+14155550210": "waiting for a START",
    });
    for (const welcome of welcomeFilters.slice(1)) {
      const found = phones(await waitlistPage(store, owner(), { welcome })).sort();
      const expected = rows.filter((row) => row.welcome.split(/[:,]| for /)[0] === welcome).map((row) => row.phone);
      expect(found, welcome).toStrictEqual(expected.sort());
    }
    expect((await waitlistPage(store, owner(), { welcome: "failing" })).total).toBe(2);
  });

  it("filters by where each number's first sign-up came from, as its row reads it, and names the sources there are", async () => {
    const store = await open(engine);
    await store.db.deleteFrom("lead_sources").execute();
    const from = async (phone: string, at: number, query: string | undefined) => {
      const lead = await signUp(store, phone, at);
      if (query !== undefined)
        await recordSource(store, { id: lead.id, form: "waitlist", at }, touchOf(new URLSearchParams(query)));
    };
    await from("+14155550301", 1_000, "source=instagram&campaign=spring");
    await from("+14155550302", 2_000, "source=newsletter");
    // First from the newsletter, then again from Instagram: the first is where the chef came from.
    await from("+14155550303", 3_000, "source=newsletter");
    await from("+14155550303", 4_000, "source=instagram");
    // From before sources were kept.
    await from("+14155550304", 5_000, undefined);
    expect(await sourceNames(store, "waitlist")).toStrictEqual(["instagram", "newsletter"]);
    const rows = (await waitlistPage(store, owner(), {})).rows;
    expect(Object.fromEntries(rows.map((row) => [row.phone, row.source]))).toStrictEqual({
      "+14155550301": "instagram, spring",
      "+14155550302": "newsletter",
      "+14155550303": "newsletter",
      "+14155550304": "unknown",
    });
    const from_ = async (source: string) => phones(await waitlistPage(store, owner(), { source })).sort();
    expect(await from_("instagram")).toStrictEqual(["+14155550301"]);
    expect(await from_("newsletter")).toStrictEqual(["+14155550302", "+14155550303"]);
    expect(await from_("google")).toStrictEqual([]);
    expect(await from_("any")).toHaveLength(4);
  });

  it("opens a chef's page with where they stand: the latest sign-up's name and welcome, the first's source", async () => {
    const store = await open(engine);
    const first = await signUp(store, "+14155550401", 1_000, "Old Name");
    await recordSource(
      store,
      { id: first.id, form: "waitlist", at: 1_000 },
      touchOf(new URLSearchParams("source=instagram")),
    );
    await store.db
      .updateTable("outbox")
      .set({ state: "delivered", answer: "texted:false", carrier_code: "21614" })
      .where("id", "=", first.id)
      .execute();
    const later = await signUp(store, "+14155550401", 2_000, "New Name");
    await recordSource(
      store,
      { id: later.id, form: "waitlist", at: 2_000 },
      touchOf(new URLSearchParams("source=newsletter")),
    );
    const [row] = (await waitlistPage(store, owner(), {})).rows;
    const chef = (await chefOf(store, row!.key))!;
    type Standing = { name?: string; state: string; source: string; welcome: string; invitation: string };
    const standing = ({ name, state, source, welcome, invitation }: Standing) => ({
      name,
      state,
      source,
      welcome,
      invitation,
    });
    expect(standing(chef)).toStrictEqual({
      name: "New Name",
      state: "in force",
      source: "instagram",
      welcome: "waiting",
      invitation: "not invited",
    });
    expect(standing(viewersShare(chef))).toStrictEqual({ ...standing(chef), name: undefined });
    // The later sign-up gone (dropped by an owner): the earlier one is the welcome again.
    await store.db.deleteFrom("outbox").where("id", "=", later.id).execute();
    expect(standing((await chefOf(store, row!.key))!)).toMatchObject({
      name: "Old Name",
      welcome: "refused: not a mobile number",
    });
  });

  it("filters the numbers whose consent was never confirmed: a sign-up kept as evidence only, never in force", async () => {
    const store = await open(engine);
    await signUp(store, "+14155550142", 1_000);
    // A sign-up that put no consent in force and was never revoked: on the list, neither in force nor revoked.
    await recordConsent(store, {
      evidence: webConsent("+14155550166"),
      leadId: waitlistLead("+14155550166").id,
      at: 2_000,
      putsInForce: false,
    });
    const never = await waitlistPage(store, owner(), { filter: "never confirmed" });
    expect(never.rows.map(({ phone, state }) => `${phone} ${consentWords(state)}`)).toStrictEqual([
      "+14155550166 never confirmed",
    ]);
    expect(phones(await waitlistPage(store, owner(), { filter: "in force" }))).toStrictEqual(["+14155550142"]);
    expect(phones(await waitlistPage(store, owner(), { filter: "revoked" }))).toStrictEqual([]);
    expect(phones(await waitlistPage(store, owner(), {}))).toStrictEqual(["+14155550166", "+14155550142"]);
    expect(["in force", "revoked"].map((state) => consentWords(state as "in force" | "revoked"))).toStrictEqual([
      "in force",
      "revoked",
    ]);
  });

  it("lists every number that signed up once, newest first by its first sign-up, keyed by that record, with its consent", async () => {
    const store = await open(engine);
    await signUp(store, "+14155550142", 1_000);
    await signUp(store, "+14155550199", 2_000);
    // Signed up again later: still one row, in its first place.
    await signUp(store, "+14155550142", 3_000);
    await revokeConsent(store, { phone: "+14155550199", channel: "sms", source: "workflow", at: 4_000 });
    // A stranger's STOP and START: evidence, not a sign-up.
    await revokeConsent(store, { phone: "+14155550777", channel: "sms", source: "workflow", at: 5_000 });
    await renewConsent(store, { phone: "+14155550777", at: 6_000, messageId: "SM1" });

    const all = await waitlistPage(store, owner(), {});
    expect(all).toMatchObject({ total: 2, page: 1, pages: 1 });
    // Each with the name its latest sign-up keeps (a STOP before delivery emptied the other's), where it came from,
    // its welcome and its invitation.
    const person = { source: "unknown", invitation: "not invited" };
    expect(all.rows).toStrictEqual([
      {
        key: expect.stringMatching(/^con_/),
        phone: "+14155550199",
        signedUpAt: 2_000,
        state: "revoked",
        name: undefined,
        welcome: "not sent: consent ended first",
        ...person,
      },
      {
        key: expect.stringMatching(/^con_/),
        phone: "+14155550142",
        signedUpAt: 1_000,
        state: "in force",
        name: "Chef 3000",
        welcome: "waiting",
        ...person,
      },
    ]);
    // Each row its own invitation: the number in force is invited, the revoked one not.
    await welcomeTexted(store);
    await queueWave(store, { name: "rows", selection: { next: 2 }, text: () => "Hi", now: 7_000 });
    const invited = (await waitlistPage(store, owner(), {})).rows.map(({ phone, invitation }) => [phone, invitation]);
    expect(invited).toStrictEqual([
      ["+14155550199", "not invited"],
      ["+14155550142", "queued"],
    ]);
    await store.db.deleteFrom("invitations").where("wave", "=", "rows").execute();
    expect(phones(await waitlistPage(store, owner(), { filter: "revoked" }))).toStrictEqual(["+14155550199"]);
    expect(phones(await waitlistPage(store, owner(), { filter: "in force" }))).toStrictEqual(["+14155550142"]);
    expect(phones(await waitlistPage(store, owner(), { filter: "never confirmed" }))).toStrictEqual([]);

    // The key is the number's first sign-up, and it opens the chef's records.
    const chef = await chefOf(store, all.rows[1]!.key);
    expect(chef).toMatchObject({ phone: "+14155550142", state: "in force" });
    expect(chef!.consents.map((record) => record.consented_at)).toStrictEqual([1_000, 3_000]);
    expect(chef!.consents[0]!.disclosure_text).toBe("I agree.");
    expect(chef!.leads.map(({ name }) => name)).toStrictEqual(["Chef 1000", "Chef 3000"]);
    expect(await chefOf(store, "con_nobody")).toBeUndefined();
    expect(await chefOf(store, `con_${"x".repeat(200)}`)).toBeUndefined();
  });

  it("a chef's page: each lead with the name its payload still holds, and the STOP and START with their message ids", async () => {
    const store = await open(engine);
    const emptied = await signUp(store, "+14155550142", 1_000);
    const numbered = await signUp(store, "+14155550142", 2_000);
    const unreadable = await signUp(store, "+14155550142", 3_000);
    await revokeConsent(store, {
      phone: "+14155550142",
      channel: "sms",
      source: "workflow",
      at: 4_000,
      messageId: "SM-stop",
    });
    await renewConsent(store, { phone: "+14155550142", at: 5_000, messageId: "SM-start" });
    // The STOP emptied the three; as a kept one the first is empty, the others hold no name as text.
    const setPayload = (id: string, payload: string | null) =>
      store.db.updateTable("outbox").set({ payload }).where("id", "=", id).execute();
    await setPayload(emptied.id, null);
    await setPayload(numbered.id, JSON.stringify({ phone: "+14155550142", name: 42 }));
    await setPayload(unreadable.id, "{not json");
    // One lead's delivery log: its two attempts, in order.
    const attempt = { outbox_id: numbered.id, status: 502, failure: "status", duration_ms: 40, sender: "visitor" };
    await store.db
      .insertInto("outbox_attempts")
      .values([
        { ...attempt, number: 2, at: 2_500, status: 200, failure: null, sender: "pass" },
        { ...attempt, number: 1, at: 2_000 },
      ])
      .execute();
    // Signed up again after the START: a name kept as typed; and once more, a lead the operator dropped since
    // (its consent record stays, naming a lead that is gone).
    const kept = await signUp(store, "+14155550142", 6_000, "Ada 👩‍🍳 Lovelace");
    await recordSource(
      store,
      { id: kept.id, form: "waitlist", at: 6_000 },
      {
        ...touchOf(new URLSearchParams("source=instagram&medium=social&campaign=spring&landing_page=/")),
      },
    );
    const dropped = await signUp(store, "+14155550142", 6_500);
    expect(await dropLead(store, dropped.id)).toBe(true);

    // Another chef, and a wave that invites both: the page holds this chef's invitation alone.
    await signUp(store, "+14155550199", 7_000);
    await queueWave(store, { name: "chef-page", selection: { next: 2 }, text: () => "Hi", now: 8_000 });

    const { rows } = await waitlistPage(store, owner(), {});
    // Its row: the latest name kept (the dropped lead's is gone), the first source known, its invitation.
    const row = rows.find((candidate) => candidate.phone === "+14155550142")!;
    expect([row.name, row.source, row.invitation]).toStrictEqual(["Ada 👩‍🍳 Lovelace", "instagram, spring", "queued"]);
    expect(rows.find((candidate) => candidate.phone === "+14155550199")!.source).toBe("unknown");
    // A viewer's rows hold no name.
    const viewed = await waitlistPage(store, operator("viewer"), {});
    expect(viewed.rows.map(({ name, source }) => [name, source]).sort()).toStrictEqual([
      [undefined, "instagram, spring"],
      [undefined, "unknown"],
    ]);
    const chef = await chefOf(store, row.key);
    expect(chef).toMatchObject({ phone: "+14155550142", state: "in force" });
    const log = (attempts: { number: number; status: number | null; sender: string }[]) =>
      attempts.map(({ number, status, sender }) => `${number} ${status} ${sender}`);
    expect(chef!.leads.map(({ lead, name, attempts }) => [lead.id, name, log(attempts)])).toStrictEqual([
      [emptied.id, undefined, []],
      [numbered.id, undefined, ["1 502 visitor", "2 200 pass"]],
      [unreadable.id, undefined, []],
      [kept.id, "Ada 👩‍🍳 Lovelace", []],
    ]);
    // Where each came from: those from before sources were kept read "unknown"; a viewer sees it too.
    expect(viewersShare(chef!).leads.map(({ source }) => source)).toStrictEqual([
      "unknown",
      "unknown",
      "unknown",
      "instagram (social), campaign spring, landed on /",
    ]);
    expect(chef!.revocations.map((record) => [record.revoked_at, record.message_id])).toStrictEqual([
      [4_000, "SM-stop"],
    ]);
    expect(chef!.renewals.map((record) => [record.renewed_at, record.message_id])).toStrictEqual([[5_000, "SM-start"]]);
    expect(chef!.invitations.map(({ phone, wave }) => [phone, wave])).toStrictEqual([["+14155550142", "chef-page"]]);
  });

  it("a chef as a viewer sees them: every state and time, the number masked, and none of the evidence", async () => {
    // A number of its own: the test before invited +14155550142 already, and a number is invited once.
    const store = await open(engine);
    const first = await signUp(store, "+14155550143", 1_000);
    await revokeConsent(store, {
      phone: "+14155550143",
      channel: "sms",
      source: "workflow",
      at: 4_000,
      messageId: "SM-stop",
    });
    await renewConsent(store, { phone: "+14155550143", at: 5_000, messageId: "SM-start" });
    // Signed up again after the START: this lead still holds its name.
    const lead = await signUp(store, "+14155550143", 6_000, "Ada Lovelace");
    await store.db
      .insertInto("outbox_attempts")
      .values({
        outbox_id: lead.id,
        number: 1,
        at: 6_500,
        status: 200,
        failure: null,
        duration_ms: 40,
        sender: "visitor",
      })
      .execute();
    await welcomeTexted(store);
    await queueWave(store, { name: "viewers", selection: { next: 1 }, text: () => "Hi Ada, Sous is open", now: 8_000 });
    const [row] = (await waitlistPage(store, owner(), {})).rows;
    const chef = (await chefOf(store, row!.key))!;
    // The owner's record holds the evidence the viewer's must not.
    const evidence = ["+14155550143", "Ada Lovelace", "SM-stop", "SM-start", "Hi Ada, Sous is open"];
    const owners = JSON.stringify(chef);
    for (const text of evidence) expect(owners).toContain(text);
    const [consent] = chef.consents;

    const share = viewersShare(chef);
    const shared = JSON.stringify(share);
    for (const text of [...evidence, consent!.disclosure_text, consent!.user_agent!, consent!.ip!, consent!.page_url!])
      expect(shared, text).not.toContain(text);
    expect(share).toStrictEqual({
      phone: "+1 ••• ••• 0143",
      state: "in force",
      source: "unknown",
      welcome: "texted",
      invitation: "queued",
      consents: chef.consents.map((record) => ({ id: record.id, consented_at: record.consented_at })),
      revocations: [{ id: chef.revocations[0]!.id, revoked_at: 4_000, channel: "sms", source: "workflow" }],
      renewals: [{ id: chef.renewals[0]!.id, renewed_at: 5_000, channel: "sms", source: "workflow" }],
      leads: [first, lead].map(({ id }) => ({
        lead: {
          id,
          receiver: "waitlist",
          state: expect.any(String),
          created_at: expect.any(Number),
          delivered_at: null,
        },
        source: "unknown",
        attempts: id === lead.id ? [expect.objectContaining({ number: 1, status: 200, sender: "visitor" })] : [],
      })),
      invitations: [
        {
          id: chef.invitations[0]!.id,
          wave: "viewers",
          state: "queued",
          created_at: 8_000,
          delivered_at: null,
          opened_at: null,
        },
      ],
    });
    expect(share.consents.map((record) => record.consented_at)).toStrictEqual([1_000, 6_000]);
    expect(share.leads.map(({ lead: { state } }) => state)).toStrictEqual(
      chef.leads.map(({ lead: { state } }) => state),
    );
  });

  it("finds, for an owner, a number in any spelling, a part of one, or a name in any case, by the name alone; the rest of the list is left out", async () => {
    const store = await open(engine);
    await signUp(store, "+14155550142", 1_000, "Ada Lovelace");
    await signUp(store, "+12125550100", 2_000, "Julia Child");
    await signUp(store, "+14155550199", 3_000, "100% Grace_Hopper");
    await signUp(store, "+13125550177", 4_000, "Table for 2");
    await signUp(store, "+13125550188", 5_000, 'Chef "Q\\" Quote');

    for (const spelling of ["(415) 555-0142", "+1 415.555.0142", "4155550142", " +14155550142 "])
      expect(phones(await waitlistPage(store, owner(), { search: spelling })), spelling).toStrictEqual([
        "+14155550142",
      ]);
    expect(phones(await waitlistPage(store, owner(), { search: "0100" }))).toStrictEqual(["+12125550100"]);
    // A part typed as people write numbers; and a name that ends in digits, searched as a name (letters anywhere).
    expect(phones(await waitlistPage(store, owner(), { search: "(212) 555" }))).toStrictEqual(["+12125550100"]);
    expect(phones(await waitlistPage(store, owner(), { search: "for 2" }))).toStrictEqual(["+13125550177"]);
    expect(phones(await waitlistPage(store, owner(), { search: "415" }))).toStrictEqual([
      "+14155550199",
      "+14155550142",
    ]);
    expect(phones(await waitlistPage(store, owner(), { search: "jUlIa" }))).toStrictEqual(["+12125550100"]);
    expect(phones(await waitlistPage(store, owner(), { search: "lovelace" }))).toStrictEqual(["+14155550142"]);
    // A wildcard typed is a character: "%" and "_" find only the name that holds them.
    expect(phones(await waitlistPage(store, owner(), { search: "100%" }))).toStrictEqual(["+14155550199"]);
    expect(phones(await waitlistPage(store, owner(), { search: "e_H" }))).toStrictEqual(["+14155550199"]);
    expect(phones(await waitlistPage(store, owner(), { search: "a_a" }))).toStrictEqual([]);
    expect(phones(await waitlistPage(store, owner(), { search: "Nobody" }))).toStrictEqual([]);
    // Quotes and backslashes of a name are its own characters, as typed.
    expect(phones(await waitlistPage(store, owner(), { search: '"q\\"' }))).toStrictEqual(["+13125550188"]);
    // The JSON around the name is never searched: its keys, its quotes, another field.
    for (const probe of ['"name":"J', '"name"', "phone", '":"'])
      expect(phones(await waitlistPage(store, owner(), { search: probe })), probe).toStrictEqual([]);
    // Searched and filtered at once.
    expect(phones(await waitlistPage(store, owner(), { search: "415", filter: "revoked" }))).toStrictEqual([]);
    expect(phones(await waitlistPage(store, owner(), { search: "   " }))).toHaveLength(5);
  });

  it("finds, for a viewer, a chef by the whole number only: a part of one or a name finds nothing and says how to search", async () => {
    const store = await open(engine);
    await signUp(store, "+14155550142", 1_000, "Julia Child");
    await signUp(store, "+12125550100", 2_000, "Ada Lovelace");
    const viewer = () => operator("viewer");

    for (const spelling of ["+14155550142", "(415) 555-0142", "415 555 0142"])
      expect(phones(await waitlistPage(store, viewer(), { search: spelling })), spelling).toStrictEqual([
        "+14155550142",
      ]);
    for (const probe of ["0142", "5550142", "00142", "415555014", "Julia", '"name":"J'])
      expect(await refusal(waitlistPage(store, viewer(), { search: probe })), probe).toBe(
        "Viewers search by a whole number, in any spelling.",
      );
    // The same reads as an owner's find them: the viewer's refusal is the role, not the search.
    expect(phones(await waitlistPage(store, owner(), { search: "0142" }))).toStrictEqual(["+14155550142"]);
    expect(phones(await waitlistPage(store, owner(), { search: "Julia" }))).toStrictEqual(["+14155550142"]);
  });

  it("counts each operator's searches: the 61st in 10 minutes is refused in words, another operator's goes on; reads with no search count nothing", async () => {
    const store = await open(engine);
    await signUp(store, "+14155550142", 1_000, "Julia Child");
    const busy = owner();
    for (let read = 0; read < 5; read += 1) await waitlistPage(store, busy, {});
    for (let search = 0; search < 60; search += 1) await waitlistPage(store, busy, { search: "Julia" });
    expect(await refusal(waitlistPage(store, busy, { search: "Julia" }))).toMatch(
      /^Too many searches\. Try again in (9|10) minutes\.$/,
    );
    expect(phones(await waitlistPage(store, busy, {}))).toStrictEqual(["+14155550142"]);
    expect(phones(await waitlistPage(store, owner(), { search: "Julia" }))).toStrictEqual(["+14155550142"]);
  });

  it("pages by 50, and says what is wrong with a search or a page it cannot answer", async () => {
    const store = await open(engine);
    for (let index = 0; index < PAGE_SIZE + 1; index += 1)
      await signUp(store, `+1415555${String(1000 + index)}`, 10_000 + index);
    const first = await waitlistPage(store, owner(), {});
    expect(first).toMatchObject({ total: PAGE_SIZE + 1, page: 1, pages: 2 });
    expect(first.rows).toHaveLength(PAGE_SIZE);
    expect(first.rows[0]!.phone).toBe(`+1415555${1000 + PAGE_SIZE}`);
    const second = await waitlistPage(store, owner(), { page: 2 });
    expect(phones(second)).toStrictEqual(["+14155551000"]);

    expect(await refusal(waitlistPage(store, owner(), { page: 3 }))).toBe("There is no page 3: pages 1 to 2.");
    expect(await refusal(waitlistPage(store, owner(), { page: 0 }))).toBe("There is no page 0: pages 1 to 2.");
    expect(await refusal(waitlistPage(store, owner(), { page: 1.5 }))).toBe("There is no page 1.5: pages 1 to 2.");
    expect(await refusal(waitlistPage(store, owner(), { page: Number.NaN }))).toBe(
      "There is no page NaN: pages 1 to 2.",
    );
    expect(await refusal(waitlistPage(store, owner(), { page: 1e20 }))).toBe(
      "There is no page 100000000000000000000: pages 1 to 2.",
    );
    expect(await refusal(waitlistPage(store, owner(), { page: 2 ** 50 }))).toBe(
      `There is no page ${2 ** 50}: pages 1 to 2.`,
    );
    expect(await refusal(waitlistPage(store, owner(), { search: "x".repeat(10_000) }))).toBe(
      "Search for at most 100 characters.",
    );
    expect(await refusal(waitlistPage(store, owner(), { search: "x".repeat(100) }))).toBe("accepted");
    expect(await refusal(waitlistPage(store, owner(), { search: "41" }))).toBe(
      "Type at least 3 digits of a number, or a name.",
    );
    // An empty list is one page: retention took every record, and every number with them.
    await forgetOldConsents(store, Number.MAX_SAFE_INTEGER);
    expect(await waitlistPage(store, owner(), {})).toMatchObject({ total: 0, page: 1, pages: 1, rows: [] });
  });
});

describe("an invitation, in the waitlist's words", () => {
  it("is its state, opened when it was, a refusal's reason, or none", () => {
    const invitation = (
      state: InvitationRow["state"],
      opened_at: number | null = null,
      carrier_code: string | null = null,
    ) => invitationWords({ state, opened_at, carrier_code });
    expect(invitationWords(undefined)).toBe("not invited");
    expect(invitation("queued")).toBe("queued");
    expect(invitation("texted", 5)).toBe("texted, opened");
    expect(invitation("refused", null, "21614")).toBe("refused: not a mobile number");
  });
});

describe("where a lead came from, in words", () => {
  it("names the source, its medium and campaign and the page landed on, each only when known", () => {
    const words = (query: string) => sourceWords(touchOf(new URLSearchParams(query)));
    expect(words("")).toBe("direct");
    expect(words("source=www.google.com&landing_page=/signup")).toBe("www.google.com, landed on /signup");
    expect(words("source=news&campaign=may")).toBe("news, campaign may");
    expect(sourceWords(undefined)).toBe("unknown");
  });
});

describe("a number as a viewer sees it", () => {
  it("its country code and last four digits", () => {
    expect(maskedPhone("+14155550142")).toBe("+1 ••• ••• 0142");
    expect(maskedPhone("+447700900123")).toBe("+44 ••• ••• 0123");
    expect(maskedPhone("(415) 555-0142")).toBe("••• ••• 0142");
  });
});
