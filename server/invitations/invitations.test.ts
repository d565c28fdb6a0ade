import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { updateInvitations } from "@/tests/support/lead-rows";
import { plainEvidence, waitlistLead } from "@/tests/support/waitlist-lead";
import { smsTexts } from "@/lib/sms/program";
import { recordConsent, recordRenewal } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import type { Store } from "@/server/db/connect";
import type { InvitationState } from "@/server/db/schema";
import { inTransaction } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { revokeConsent } from "@/server/consent/consent-changes";
import { newWebhookId, claimRow, insertLead, openCounts, rowsOf } from "@/server/outbox/outbox-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { startInviteReceiver } from "@/tests/support/invite-receiver";
import { INVITATIONS } from "@/server/env";
import type { AttemptResult } from "@/server/outbox/webhook";
import { settleClaimed } from "@/server/outbox/send";
import {
  forgetOldInvitations,
  listInvitations,
  markClaimed,
  waveNamed,
  type InvitationRow,
} from "@/server/invitations/invitation-store";
import { invitationKind, invitationPass, mayHaveReachedCarrier } from "./invitation-pass";
import { zonesOf } from "./quiet-hours";
import { cancelInvitations, planWave, queueWave } from "./waves";
import { alertsSettled } from "@/server/outbox/alerts";

const open = setupBothEngines();

/** Held by a sender whose claim is `token`, as a pass takes an invitation. */
async function holdAs(store: Store, row: InvitationRow, token: string) {
  await claimRow(store, row.id, { token, until: afternoon + 60_000 });
  await markClaimed(store, row.id, { at: afternoon, consentId: row.consent_id });
}

const texted: AttemptResult = { ok: true, status: 200, body: '{"texted":true}' };
const refusal = (code: string): AttemptResult => ({ ok: true, status: 200, body: `{"texted":false,"code":"${code}"}` });

/** What the sender holding `token` records of one attempt the workflow answered with `result`. */
async function settleAs(
  store: Store,
  row: InvitationRow,
  token: string,
  change: Parameters<typeof settleClaimed>[2],
  result: AttemptResult,
) {
  const [outbox] = await rowsOf(store, [row.id]);
  const attempt = { at: afternoon, status: 200, failure: null, duration_ms: 1, sender: "pass" };
  await settleClaimed(
    invitationKind,
    { store, row: outbox!, claim: { token, until: 0 }, own: row, env: readEnv(), sender: "pass" },
    change,
    { records: [attempt], result },
  );
}

/** An invitation's claim, read from the outbox. */
const holderOf = async (store: Store, id: string) => (await rowsOf(store, [id]))[0]!.claimed_by;
const disclosure = disclosureOf("I agree to receive recurring automated texts. Reply STOP to cancel.");
const link = "https://sous.example/start";
const text = smsTexts.invitation(link);
// 13:00 in New York, 10:00 in Los Angeles: inside the default hours (9-20) across the lower 48.
const afternoon = Date.parse("2026-11-27T18:00:00Z");

let receiver: Awaited<ReturnType<typeof startInviteReceiver>>;
beforeAll(async () => {
  receiver = await startInviteReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  vi.stubEnv("INVITE_WEBHOOK_URL", receiver.url);
  vi.stubEnv("INVITE_WEBHOOK_SECRET", "whsec_" + Buffer.from("invite-secret-for-tests-32-bytes").toString("base64"));
  vi.stubEnv("INVITE_URL", link);
  vi.stubEnv("INVITE_PER_MINUTE", "6000");
  vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "60,60");
  receiver.outage(false);
  // The clock the pass reads (its hours, its pace), moving on with real time.
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(afternoon);
});

/** A number's sign-up, as its consent record keeps it. */
async function signUp(store: Store, phone: string, at: number) {
  return recordConsent(store, {
    evidence: { phone, ip: null, userAgent: null, pageUrl: null, javascript: false, disclosure, shownVersion: null },
    leadId: newWebhookId(),
    at,
  });
}

const pass = (store: Store, budgetMs = 10_000) => invitationPass(store, readEnv(), { budgetMs });
/** Runs passes, as the schedule does, until nothing is left to send. */
async function drain(store: Store) {
  for (let i = 0; i < 20; i += 1) {
    const summary = await pass(store);
    if (!summary.texted && !summary.refused && !summary.skipped && !summary.retrying) return;
  }
}

describe.each(["sqlite", "postgres"] as const)("launch invitations on %s", (engine) => {
  const block = engine === "sqlite" ? "1" : "2";
  // Fictional numbers of New York (212), one block per engine and test.
  const numbers = (test: string, count: number) =>
    Array.from({ length: count }, (_, i) => `+1212${block}${test.padStart(2, "0")}${String(i).padStart(4, "0")}`);

  it("plan no number that only texted START, nor one the waitlist refuses today; skip one whose country left the list", async () => {
    const store = await open(engine);
    const [member, stranger] = numbers("7", 2);
    const abroad = `+44740012340${block}`;
    vi.stubEnv("WAITLIST_PHONE_COUNTRIES", "US,CA,GB");
    await signUp(store, member!, afternoon - 3_000);
    await signUp(store, abroad, afternoon - 2_000);
    // A START from a number with no sign-up (a stranger, or a premium range) is evidence, not consent.
    await recordRenewal(store, { phone: stranger!, messageId: `SM-${engine}-stranger`, at: afternoon - 1_000 });
    const all = [member!, stranger!, abroad];
    // Its working twin: while GB is on the list, the number from abroad is planned with the member.
    expect((await planWave(store, { phones: all })).chosen.map((entry) => entry.phone)).toStrictEqual([member, abroad]);
    expect(
      await queueWave(store, {
        name: `${engine}-abroad`,
        selection: { phones: [abroad] },
        text: () => text,
        now: afternoon,
      }),
    ).toMatchObject({ queued: 1 });

    vi.stubEnv("WAITLIST_PHONE_COUNTRIES", "US,CA");
    const plan = await planWave(store, { phones: [member!, stranger!, `+44740012341${block}`] });
    expect(plan.chosen.map((entry) => entry.phone)).toStrictEqual([member]);
    expect(plan.leftOut).toStrictEqual({ revoked: 0, invited: 0, noRecord: 2, country: 0, welcome: 0 });
    await signUp(store, `+44740012341${block}`, afternoon - 500);
    expect((await planWave(store, { phones: [`+44740012341${block}`] })).leftOut).toMatchObject({ country: 1 });
    // Queued while GB was taken, claimed after it left the list: skipped, never sent.
    expect(await pass(store)).toMatchObject({ skipped: 1, texted: 0 });
    expect(receiver.received.filter((call) => call.phone === abroad)).toStrictEqual([]);
    expect(await listInvitations(store, { wave: `${engine}-abroad` })).toStrictEqual([
      expect.objectContaining({ phone: abroad, state: "skipped", last_failure: "country not accepted" }),
    ]);
  });

  it("plan no number whose welcome was not texted, and list each with its welcome; one texted or not reported is planned", async () => {
    const store = await open(engine);
    const phones = numbers("8", 6);
    const welcomes = [
      { state: "delivered", answer: "texted" },
      { state: "delivered", answer: null },
      { state: "delivered", answer: "texted:false", carrier_code: "21614" },
      { state: "pending", attempts: 3 },
      { state: "held" },
      { state: "pending" },
    ] as const;
    for (const [index, phone] of phones.entries()) {
      const lead = { ...waitlistLead(phone), ...welcomes[index]! };
      await insertLead(store, lead);
      await recordConsent(store, {
        evidence: plainEvidence(phone, disclosure),
        leadId: lead.id,
        at: afternoon - 10_000 + index,
      });
    }
    const plan = await planWave(store, { phones });
    expect(plan.chosen.map((entry) => entry.phone)).toStrictEqual(phones.slice(0, 2));
    expect(plan.leftOut).toMatchObject({ welcome: 4 });
    expect(plan.notWelcomed).toStrictEqual([
      { phone: phones[2], welcome: "refused" },
      { phone: phones[3], welcome: "failing" },
      { phone: phones[4], welcome: "waiting" },
      { phone: phones[5], welcome: "waiting" },
    ]);
    // Its twin: once the waiting one's welcome is texted, the next plan takes it.
    await store.db
      .updateTable("outbox")
      .set({ state: "delivered", answer: "texted" })
      .where("state", "=", "held")
      .execute();
    expect((await planWave(store, { phones })).chosen.map((entry) => entry.phone)).toStrictEqual([
      phones[0],
      phones[1],
      phones[4],
    ]);
  });

  it("plan and queue the numbers in force and never invited, in sign-up order, naming who is left out and why", async () => {
    const store = await open(engine);
    const [first, second, third, revoked, invited] = numbers("1", 5);
    await signUp(store, third!, afternoon - 1_000);
    await signUp(store, first!, afternoon - 3_000);
    await signUp(store, second!, afternoon - 2_000);
    await signUp(store, revoked!, afternoon - 4_000);
    await revokeConsent(store, { phone: revoked!, channel: "sms", source: "workflow", at: afternoon - 500 });
    await signUp(store, invited!, afternoon - 5_000);
    expect(
      await queueWave(store, {
        name: `${engine}-early`,
        selection: { phones: [invited!] },
        text: () => text,
        now: afternoon,
      }),
    ).toMatchObject({ queued: 1 });
    const unknown = `+1212${block}100099`;

    const plan = await planWave(store, { phones: [third!, first!, second!, revoked!, invited!, unknown] });
    expect(plan.chosen.map((entry) => entry.phone)).toStrictEqual([first, second, third]);
    expect(plan.leftOut).toStrictEqual({ revoked: 1, invited: 1, noRecord: 1, country: 0, welcome: 0 });
    const firstTwo = await planWave(store, { next: 2 });
    expect(firstTwo.chosen).toHaveLength(2);
    const queued = await queueWave(store, {
      name: `${engine}-w1`,
      selection: { phones: [third!, first!, second!, revoked!, invited!, unknown] },
      text: () => text,
      now: afternoon,
    });
    expect(queued?.queued).toBe(3);
    const rows = await listInvitations(store, { wave: `${engine}-w1` });
    expect(rows.map((row) => [row.phone, row.position, row.state, row.text])).toStrictEqual([
      [first, 0, "queued", text],
      [second, 1, "queued", text],
      [third, 2, "queued", text],
    ]);
    // A second wave naming them texts none of them; a wave's name is used once.
    expect(
      await queueWave(store, {
        name: `${engine}-w2`,
        selection: { phones: [first!, second!, third!] },
        text: () => text,
        now: afternoon,
      }),
    ).toMatchObject({ queued: 0 });
    // A wave with nobody to text is none: its name stays free (nothing was recorded under it).
    expect(await waveNamed(store, `${engine}-w2`)).toBeUndefined();
    expect(
      await queueWave(store, {
        name: `${engine}-w1`,
        selection: { phones: [unknown] },
        text: () => text,
        now: afternoon,
      }),
    ).toBeUndefined();
  });

  it("check consent again when each is sent: a number that texted STOP after it was queued is skipped, the others texted once with their consent record", async () => {
    const store = await open(engine);
    const phones = numbers("2", 4);
    const records = new Map<string, string>();
    for (const [i, phone] of phones.entries()) records.set(phone, await signUp(store, phone, afternoon - 10_000 + i));
    // One number came back with a START after a STOP: its consent rests on the START.
    await revokeConsent(store, { phone: phones[3]!, channel: "sms", source: "workflow", at: afternoon - 5_000 });
    await recordRenewal(store, { phone: phones[3]!, messageId: newWebhookId(), at: afternoon - 4_000 });
    await queueWave(store, { name: `${engine}-stop`, selection: { phones }, text: () => text, now: afternoon });
    await revokeConsent(store, { phone: phones[1]!, channel: "sms", source: "workflow" });

    await drain(store);
    expect(
      receiver
        .texted(phones)
        .map((request) => request.phone)
        .sort(),
    ).toStrictEqual([phones[0], phones[2], phones[3]].sort());
    const rows = await listInvitations(store, { wave: `${engine}-stop` });
    const byPhone = new Map(rows.map((row) => [row.phone, row]));
    expect(byPhone.get(phones[1]!)).toMatchObject({
      state: "skipped",
      attempts: 0,
      last_failure: "consent revoked",
      claimed_at: null,
    });
    expect(byPhone.get(phones[0]!)).toMatchObject({
      state: "texted",
      answer: "texted",
      consent_id: records.get(phones[0]!),
      attempts: 1,
    });
    expect(byPhone.get(phones[3]!)?.consent_id).toMatch(/^ren_/);
    // Each sent under its own webhook-id, the invitation's id, with the exact text recorded.
    for (const request of receiver.texted(phones)) {
      expect(request.webhookId).toBe(byPhone.get(request.phone)?.id);
      expect(request.text).toBe(text);
      // A first attempt: nothing for the workflow to look up.
      expect(request.redeliverySince).toBeUndefined();
    }
    // The working twin of "skipped": the same number, had it not texted STOP, was texted (phones[0], [2]).
  });

  it("record the carrier's refusal with its code, and redeliver after an outage under the same webhook-id until it is answered", async () => {
    const store = await open(engine);
    const [refusedNumber, waiting] = numbers("3", 2);
    await signUp(store, refusedNumber!, afternoon - 2_000);
    await signUp(store, waiting!, afternoon - 1_000);
    receiver.refuse(refusedNumber!, 21610);
    await queueWave(store, {
      name: `${engine}-outage`,
      selection: { phones: [refusedNumber!, waiting!] },
      text: () => text,
      now: afternoon,
    });
    receiver.outage(true);
    expect(await pass(store)).toMatchObject({ retrying: 2, texted: 0 });
    let rows = await listInvitations(store, { wave: `${engine}-outage` });
    expect(rows.map((row) => [row.state, row.rounds, row.last_failure])).toStrictEqual([
      ["queued", 1, "status 503 twilio_unreachable"],
      ["queued", 1, "status 503 twilio_unreachable"],
    ]);
    // Not due yet: the next pass leaves them.
    expect(await pass(store)).toMatchObject({ retrying: 0, texted: 0 });
    receiver.outage(false);
    vi.setSystemTime(afternoon + 90_000);
    expect(await pass(store)).toMatchObject({ texted: 1, refused: 1 });
    rows = await listInvitations(store, { wave: `${engine}-outage` });
    expect(rows.map((row) => [row.phone, row.state, row.answer, row.carrier_code, row.attempts])).toStrictEqual([
      [refusedNumber, "refused", "texted:false", "21610", 2],
      [waiting, "texted", "texted", null, 2],
    ]);
    const sends = receiver.received.filter((request) => request.phone === waiting);
    expect(sends).toHaveLength(2);
    expect(new Set(sends.map((request) => request.webhookId)).size).toBe(1);
    // The redelivery says since when the workflow may have texted it (the invitation's queuing); the first does not.
    expect(sends.map((request) => request.redeliverySince)).toStrictEqual([undefined, String(afternoon / 1000)]);
  });

  it("send nothing outside 9:00-20:00 local in any zone a number could be in, and each once its hours open, in order, with no one running anything again", async () => {
    const store = await open(engine);
    const phoneOf = (areaCode: string) => `+1${areaCode}55501${block}6`;
    // Two in New York, Chicago, Denver, Los Angeles, and a Canadian area code (273) the time zone map does not
    // know: every Canadian zone, from St. John's to Vancouver (whose offset the runtime's time zone data decides).
    const zones = Object.fromEntries(
      ["917", "212", "312", "303", "415", "273"].map((areaCode) => [areaCode, zonesOf(phoneOf(areaCode)).zones]),
    );
    expect(zones["273"]).toEqual(expect.arrayContaining(["America/St_Johns", "America/Toronto", "America/Vancouver"]));
    // Signed up west to east: the sign-up order is not the order the hours open in.
    const order = ["415", "273", "303", "312", "917", "212"];
    for (const [i, areaCode] of order.entries()) await signUp(store, phoneOf(areaCode), afternoon - 10_000 + i);
    const dawn = Date.parse("2026-11-27T11:00:00Z"); // 6:00 in New York, 3:00 in Los Angeles
    vi.setSystemTime(dawn);
    await queueWave(store, {
      name: `${engine}-hours`,
      selection: { phones: order.map(phoneOf) },
      text: () => text,
      now: dawn,
    });
    expect(await pass(store)).toMatchObject({ waiting: 6, texted: 0 });
    const localHour = (zone: string, at: number) =>
      Number(new Intl.DateTimeFormat("en-US", { timeZone: zone, hour: "numeric", hourCycle: "h23" }).format(at));
    const inside = (areaCode: string, at: number) =>
      zones[areaCode]!.every((zone) => localHour(zone, at) >= 9 && localHour(zone, at) < 20);

    // The schedule's passes through a day, a quarter hour apart.
    const quarter = 15 * 60_000;
    const sentAt = new Map<string, number>();
    for (let at = dawn; at < dawn + 24 * 3_600_000; at += quarter) {
      vi.setSystemTime(at);
      await pass(store);
      for (const request of receiver.texted(order.map(phoneOf)))
        if (!sentAt.has(request.phone)) sentAt.set(request.phone, at);
    }
    expect(receiver.texted(order.map(phoneOf))).toHaveLength(6);
    for (const areaCode of order) {
      const at = sentAt.get(phoneOf(areaCode))!;
      // Inside in every zone when it went, and not a quarter hour before: sent as soon as its hours opened.
      expect(inside(areaCode, at), `${areaCode} at ${new Date(at).toISOString()}`).toBe(true);
      expect(inside(areaCode, at - quarter), `${areaCode} before ${new Date(at).toISOString()}`).toBe(false);
    }
    // 9:00 in each single zone of the lower 48.
    expect(
      Object.fromEntries(
        ["212", "312", "303", "415"].map((areaCode) => [
          areaCode,
          new Date(sentAt.get(phoneOf(areaCode))!).toISOString(),
        ]),
      ),
    ).toStrictEqual({
      "212": "2026-11-27T14:00:00.000Z",
      "312": "2026-11-27T15:00:00.000Z",
      "303": "2026-11-27T16:00:00.000Z",
      "415": "2026-11-27T17:00:00.000Z",
    });
    // Within one opening, in sign-up order: the two New York numbers.
    expect(receiver.texted([phoneOf("917"), phoneOf("212")]).map((request) => request.phone)).toStrictEqual([
      phoneOf("917"),
      phoneOf("212"),
    ]);
  });

  it("keep the pace across two passes at once: no two invitations claimed closer than 60,000 / INVITE_PER_MINUTE ms, each texted once", async () => {
    vi.stubEnv("INVITE_PER_MINUTE", "600");
    // Postgres: two servers' connections. SQLite: two passes of one server (two processes' are the browser specs':
    // in one process, two connections' write locks would wait on each other).
    const one = await open(engine);
    const two = engine === "postgres" ? await open(engine) : one;
    const phones = numbers("7", 12);
    for (const [i, phone] of phones.entries()) await signUp(one, phone, afternoon - 10_000 + i);
    await queueWave(one, { name: `${engine}-pace`, selection: { phones }, text: () => text, now: Date.now() });
    const summaries = await Promise.all([pass(one, 20_000), pass(two, 20_000)]);
    expect(summaries[0]!.texted + summaries[1]!.texted).toBe(12);
    expect(receiver.texted(phones)).toHaveLength(12);
    expect(new Set(receiver.texted(phones).map((request) => request.phone)).size).toBe(12);
    const claimed = (await listInvitations(one, { wave: `${engine}-pace` }))
      .map((row) => row.claimed_at!)
      .sort((a, b) => a - b);
    const gaps = claimed.slice(1).map((at, i) => at - claimed[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(100);
    // The passes' own budget (20 s) bounds it, not the default 5 s: 12 slots of 100 ms took 4.7 s on a loaded machine.
  }, 30_000);

  it.each([
    ["an empty 2xx (n8n's, when an execution dies)", "6", ""],
    [
      "a 2xx whose JSON says nothing of `texted` (n8n's answer from a workflow that answers at once)",
      "17",
      JSON.stringify({ message: "Workflow was started" }),
    ],
  ])("take %s for no answer: sent again under its webhook-id, then recorded texted", async (_, prefix, body) => {
    const store = await open(engine);
    const [phone] = numbers(prefix, 1);
    await signUp(store, phone!, afternoon - 1_000);
    receiver.silenceOnce(phone!, body);
    await queueWave(store, {
      name: `${engine}-silent-${prefix}`,
      selection: { phones: [phone!] },
      text: () => text,
      now: afternoon,
    });
    expect(await pass(store)).toMatchObject({ retrying: 1, texted: 0 });
    expect((await listInvitations(store, { phone }))[0]).toMatchObject({
      state: "queued",
      answer: null,
      last_failure: "unconfirmed 200",
    });
    vi.setSystemTime(afternoon + 90_000);
    expect(await pass(store)).toMatchObject({ texted: 1 });
    expect((await listInvitations(store, { phone }))[0]).toMatchObject({
      state: "texted",
      answer: "texted",
      attempts: 2,
    });
    expect(
      new Set(receiver.received.filter((request) => request.phone === phone).map((request) => request.webhookId)).size,
    ).toBe(1);
  });

  it("cancel what a wave has not sent, and nothing of another wave", async () => {
    const store = await open(engine);
    const [a, b, c] = numbers("4", 3);
    for (const phone of [a, b, c]) await signUp(store, phone!, afternoon - 1_000);
    await queueWave(store, {
      name: `${engine}-cancel`,
      selection: { phones: [a!, b!] },
      text: () => text,
      now: afternoon,
    });
    await queueWave(store, { name: `${engine}-kept`, selection: { phones: [c!] }, text: () => text, now: afternoon });
    expect(await cancelInvitations(store, `${engine}-cancel`)).toStrictEqual({
      cancelled: 2,
      givenBack: 2,
      onTheirWay: 0,
    });
    expect(await cancelInvitations(store, `${engine}-nothing`)).toBeUndefined();
    await drain(store);
    expect(receiver.texted([a!, b!])).toHaveLength(0);
    expect(receiver.texted([c!])).toHaveLength(1);
    expect((await listInvitations(store, { wave: `${engine}-cancel` })).map((row) => row.state)).toStrictEqual([
      "cancelled",
      "cancelled",
    ]);
  });

  it("give back what a cancel stopped before any attempt: planned again and texted once by the next wave; keep one already tried", async () => {
    const store = await open(engine);
    // Two in New York, texted at once; two in Honolulu (08:00 there), waiting for their hours; one tried in an outage.
    const [nyFirst, nySecond, tried] = numbers("15", 3);
    const honolulu = [`+18085${block}50101`, `+18085${block}50102`];
    const wave = [nyFirst!, honolulu[0]!, nySecond!, honolulu[1]!];
    for (const [index, phone] of [...wave, tried!].entries()) await signUp(store, phone, afternoon - 10_000 + index);
    await queueWave(store, { name: `${engine}-hawaii`, selection: { phones: wave }, text: () => text, now: afternoon });
    await drain(store);
    expect(
      receiver
        .texted(wave)
        .map((request) => request.phone)
        .sort(),
    ).toStrictEqual([nyFirst, nySecond].sort());
    expect((await listInvitations(store, { wave: `${engine}-hawaii` })).map((row) => row.state)).toStrictEqual([
      "texted",
      "waiting",
      "texted",
      "waiting",
    ]);
    // The working twin of "planned again": before the cancel, the two waiting are invited already.
    expect(await planWave(store, { phones: wave })).toMatchObject({ chosen: [], leftOut: { invited: 4 } });
    // One more wave, tried once in an outage, then cancelled with the first.
    await queueWave(store, {
      name: `${engine}-tried`,
      selection: { phones: [tried!] },
      text: () => text,
      now: afternoon,
    });
    receiver.outage(true);
    await pass(store);
    receiver.outage(false);
    expect(await cancelInvitations(store, `${engine}-hawaii`)).toStrictEqual({
      cancelled: 2,
      givenBack: 2,
      onTheirWay: 0,
    });
    expect(await cancelInvitations(store, `${engine}-tried`)).toStrictEqual({
      cancelled: 1,
      givenBack: 0,
      onTheirWay: 0,
    });
    const again = await planWave(store, { phones: [...wave, tried!] });
    expect(again.chosen.map((entry) => entry.phone)).toStrictEqual(honolulu);
    expect(again.leftOut).toMatchObject({ invited: 3 });
    // The next wave takes them; at 20:00 in Honolulu they are texted, once each.
    expect(
      await queueWave(store, {
        name: `${engine}-hawaii-2`,
        selection: { phones: [...wave, tried!] },
        text: () => text,
        now: afternoon + 1,
      }),
    ).toMatchObject({ queued: 2 });
    vi.setSystemTime(afternoon + 6 * 3_600_000);
    await drain(store);
    expect(receiver.texted(honolulu)).toHaveLength(2);
    expect(receiver.texted([tried!])).toHaveLength(0);
    expect(
      (await listInvitations(store, { wave: `${engine}-hawaii-2` })).map((row) => [row.phone, row.state]),
    ).toStrictEqual(honolulu.map((phone) => [phone, "texted"]));
    // Moved, not copied: the cancelled wave no longer holds them; the tried one stays cancelled and invited.
    expect(await listInvitations(store, { wave: `${engine}-hawaii` })).toHaveLength(2);
    expect(
      (await listInvitations(store, { wave: `${engine}-tried` })).map((row) => [row.state, row.attempts]),
    ).toStrictEqual([["cancelled", 1]]);
  });

  it("give back an invitation no try of which could have reached the carrier (a wrong secret's 401s), failed for good or cancelled; keep its twin a 503 may have reached", async () => {
    const store = await open(engine);
    const [refusedThenSpent, refusedThenCancelled, unreachable] = numbers("16", 3);
    for (const [index, phone] of [refusedThenSpent!, refusedThenCancelled!, unreachable!].entries())
      await signUp(store, phone, afternoon - 10_000 + index);
    // A wrong INVITE_WEBHOOK_SECRET: the workflow's check answers 401 before any text, two rounds, then the schedule is spent.
    receiver.checkSignature("whsec_" + Buffer.from("the-secret-the-workflow-checks!!").toString("base64"));
    await queueWave(store, {
      name: `${engine}-401`,
      selection: { phones: [refusedThenSpent!] },
      text: () => text,
      now: afternoon,
    });
    for (const at of [afternoon, afternoon + 90_000]) {
      vi.setSystemTime(at);
      await pass(store);
    }
    // Refused once, then cancelled.
    await queueWave(store, {
      name: `${engine}-401-cancelled`,
      selection: { phones: [refusedThenCancelled!] },
      text: () => text,
      now: afternoon + 90_001,
    });
    // Due now, however little time the pass before took.
    vi.setSystemTime(afternoon + 90_002);
    expect(await pass(store)).toMatchObject({ retrying: 1 });
    expect(await cancelInvitations(store, `${engine}-401-cancelled`)).toStrictEqual({
      cancelled: 1,
      givenBack: 1,
      onTheirWay: 0,
    });
    receiver.checkSignature(undefined);
    // The twin: Twilio out of reach (503), which may have texted, until the schedule is spent.
    receiver.outage(true);
    await queueWave(store, {
      name: `${engine}-503`,
      selection: { phones: [unreachable!] },
      text: () => text,
      now: afternoon + 90_003,
    });
    for (const at of [afternoon + 90_004, afternoon + 180_000]) {
      vi.setSystemTime(at);
      await pass(store);
    }
    receiver.outage(false);
    const rows = [];
    for (const phone of [refusedThenSpent!, refusedThenCancelled!, unreachable!])
      rows.push(...(await listInvitations(store, { phone })));
    expect(rows.map((row) => [row.phone, row.state, row.attempts, row.reached, row.last_failure])).toStrictEqual([
      [refusedThenSpent, "failed", 2, 0, "status 401 signature"],
      [refusedThenCancelled, "cancelled", 1, 0, "wave cancelled"],
      [unreachable, "failed", 2, 2, "status 503 twilio_unreachable"],
    ]);

    // The next plan lists the two no text could have left for, and the next wave texts them once; never the twin.
    const again = await planWave(store, { phones: [refusedThenSpent!, refusedThenCancelled!, unreachable!] });
    expect(again.chosen.map((entry) => entry.phone)).toStrictEqual([refusedThenSpent, refusedThenCancelled]);
    expect(again.leftOut).toMatchObject({ invited: 1 });
    await queueWave(store, {
      name: `${engine}-401-again`,
      selection: { phones: [refusedThenSpent!, refusedThenCancelled!, unreachable!] },
      text: () => text,
      now: afternoon + 180_001,
    });
    vi.setSystemTime(afternoon + 180_002);
    await drain(store);
    expect(
      receiver
        .texted([refusedThenSpent!, refusedThenCancelled!, unreachable!])
        .map((request) => request.phone)
        .sort(),
    ).toStrictEqual([refusedThenSpent, refusedThenCancelled].sort());
  });

  it("end an invitation that was on its way when its wave was cancelled as its answer says: texted if texted, refused if the carrier refused, cancelled if it failed", async () => {
    const store = await open(engine);
    const [sent, failing, refused] = numbers("8", 3);
    for (const phone of [sent, failing, refused]) await signUp(store, phone!, afternoon - 1_000);
    await queueWave(store, {
      name: `${engine}-flight`,
      selection: { phones: [sent!, failing!, refused!] },
      text: () => text,
      now: afternoon,
    });
    const rows = await listInvitations(store, { wave: `${engine}-flight` });
    for (const row of rows) await holdAs(store, row, `t-${row.id}`);
    // Both on their way: the cancel leaves them to their senders, and says so.
    vi.setSystemTime(afternoon + 1);
    expect(await cancelInvitations(store, `${engine}-flight`)).toStrictEqual({
      cancelled: 0,
      givenBack: 0,
      onTheirWay: 3,
    });
    await settleAs(store, rows[0]!, `t-${rows[0]!.id}`, { state: "texted", delivered_at: afternoon + 2 }, texted);
    await settleAs(
      store,
      rows[1]!,
      `t-${rows[1]!.id}`,
      {
        state: "queued",
        rounds: 1,
        next_attempt_at: afternoon + 60_000,
        last_failure: "status 503 twilio_unreachable",
      },
      { ok: false, reason: "status", status: 503, body: '{"error":"twilio_unreachable"}' },
    );
    await settleAs(
      store,
      rows[2]!,
      `t-${rows[2]!.id}`,
      { state: "refused", delivered_at: afternoon + 3 },
      refusal("21610"),
    );
    const settled = await listInvitations(store, { wave: `${engine}-flight` });
    expect(settled.map((row) => [row.phone, row.state, row.answer, row.carrier_code])).toStrictEqual([
      [sent, "texted", "texted", null],
      [failing, "cancelled", null, null],
      [refused, "refused", "texted:false", "21610"],
    ]);
    for (const row of settled) expect(await holderOf(store, row.id)).toBeNull();
    // A refused invitation stays refused whatever a later sender says, as a texted one stays texted: the first
    // answer stands.
    await settleAs(store, rows[2]!, "another-holder", { state: "texted", delivered_at: afternoon + 4 }, texted);
    expect((await listInvitations(store, { phone: refused }))[0]).toMatchObject({
      state: "refused",
      delivered_at: afternoon + 3,
    });
  });

  it("count what waits on the workflow as the alerts do: queued or waiting for hours (pending), failed after an attempt (dead), each with its oldest", async () => {
    const store = await open(engine);
    await store.db.deleteFrom("outbox").where("receiver", "=", INVITATIONS).execute();
    await store.db.deleteFrom("invitations").execute();
    const phones = numbers("18", 6);
    for (const phone of phones) await signUp(store, phone, afternoon - 1_000);
    // Two waves queued a minute apart: the first three, then the other three.
    await queueWave(store, {
      name: `${engine}-open-1`,
      selection: { phones: phones.slice(0, 3) },
      text: () => text,
      now: afternoon,
    });
    await queueWave(store, {
      name: `${engine}-open-2`,
      selection: { phones: phones.slice(3) },
      text: () => text,
      now: afternoon + 60_000,
    });
    const set = (phone: string, change: { state: InvitationState; attempts?: number }) =>
      updateInvitations(store.db, change, { phone });
    await set(phones[0]!, { state: "failed", attempts: 3 });
    await set(phones[1]!, { state: "failed", attempts: 0 });
    await set(phones[3]!, { state: "waiting" });
    // Queued: phones[2] (the first wave's) and phones[4], phones[5] (the second's); waiting: phones[3].
    // Each queued a millisecond after the one before it in its wave: phones[2] at afternoon + 2.
    expect((await openCounts(store)).get(INVITATIONS)).toStrictEqual({
      pending: { count: 4, oldest: afternoon + 2 },
      held: { count: 0, oldest: undefined },
      dead: { count: 1, oldest: afternoon },
      decision: { count: 0, oldest: undefined },
      budget: { count: 0, oldest: undefined },
    });
    await set(phones[2]!, { state: "texted", attempts: 1 });
    expect((await openCounts(store)).get(INVITATIONS)?.pending).toStrictEqual({ count: 3, oldest: afternoon + 60_000 });
    // Nothing of these left for the passes of the tests after.
    const ofWaves = store.db
      .selectFrom("invitations")
      .select("id")
      .where("wave", "in", [`${engine}-open-1`, `${engine}-open-2`]);
    await store.db.deleteFrom("outbox").where("id", "in", ofWaves).execute();
    await store.db
      .deleteFrom("invitations")
      .where("wave", "in", [`${engine}-open-1`, `${engine}-open-2`])
      .execute();
  });

  it("mark failed, and log it without the number, an invitation whose redelivery schedule is spent", async () => {
    const store = await open(engine);
    const [phone] = numbers("9", 1);
    await signUp(store, phone!, afternoon - 1_000);
    await queueWave(store, {
      name: `${engine}-spent`,
      selection: { phones: [phone!] },
      text: () => text,
      now: afternoon,
    });
    receiver.outage(true);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    // The schedule "60,60": the first attempt, one redelivery 60 s later, and the schedule is spent.
    for (const at of [afternoon, afternoon + 90_000]) {
      vi.setSystemTime(at);
      await pass(store);
    }
    const [row] = await listInvitations(store, { phone });
    expect(row).toMatchObject({
      state: "failed",
      rounds: 2,
      attempts: 2,
      last_failure: "status 503 twilio_unreachable",
      answer: null,
    });
    const lines = [...warned.mock.calls, ...logged.mock.calls].map((call) => String(call[0]));
    const failed = lines.map((line) => JSON.parse(line)).filter((line) => line.webhookId === row!.id);
    expect(failed.map((line) => [line.level, line.event, line.attempts, line.reason])).toStrictEqual([
      ["warn", "invitation_pending", 1, "status 503 twilio_unreachable"],
      ["error", "invitation_failed", 2, "status 503 twilio_unreachable"],
    ]);
    expect(failed[0]).toMatchObject({ wave: `${engine}-spent` });
    // 60 s after the attempt (the clock moves on with real time from the afternoon it was set to).
    expect(Date.parse(failed[0].nextAttemptAt) - afternoon).toBeGreaterThanOrEqual(60_000);
    expect(Date.parse(failed[0].nextAttemptAt) - afternoon).toBeLessThan(65_000);
    expect(failed[1]).not.toHaveProperty("nextAttemptAt");
    expect(lines.join("\n")).not.toContain(phone!.slice(2));
    // The next pass leaves it: failed is an end.
    vi.setSystemTime(afternoon + 400_000);
    receiver.outage(false);
    await pass(store);
    expect(receiver.received.filter((request) => request.phone === phone)).toHaveLength(2);
  });

  it("leave the workflow alone for the rest of a pass after three failures in a row, and stop at once when the server stops", async () => {
    const store = await open(engine);
    const phones = numbers("10", 5);
    for (const phone of phones) await signUp(store, phone, afternoon - 1_000);
    await queueWave(store, { name: `${engine}-pause`, selection: { phones }, text: () => text, now: afternoon });
    receiver.outage(true);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(await pass(store)).toMatchObject({ retrying: 3 });
    expect(receiver.received.filter((request) => phones.includes(request.phone))).toHaveLength(3);
    receiver.outage(false);
    // A stopping server claims nothing more; the same pass, not stopping, sends the two left, and the workflow's
    // first answer makes the three that failed due at once (not at their next retry): five texted, each once.
    expect(await invitationPass(store, readEnv(), { budgetMs: 10_000, stopping: () => true })).toMatchObject({
      texted: 0,
    });
    // The release is the alerts' (they hear each answer without holding the pass up): the next pass sends what it
    // released after this one ended.
    const first = await pass(store);
    await alertsSettled();
    expect(first.texted + (await pass(store)).texted).toBe(5);
    expect(new Set(receiver.texted(phones).map((request) => request.phone)).size).toBe(5);
    expect(receiver.texted(phones)).toHaveLength(5);
    await cancelInvitations(store, `${engine}-pause`);
  });

  it("stop a pass whose budget ends before the next slot of the pace, and send the rest in the next", async () => {
    vi.stubEnv("INVITE_PER_MINUTE", "1");
    const store = await open(engine);
    const phones = numbers("11", 2);
    for (const phone of phones) await signUp(store, phone, afternoon - 1_000);
    await queueWave(store, { name: `${engine}-budget`, selection: { phones }, text: () => text, now: afternoon });
    const began = performance.now();
    // One a minute: the second slot is a minute away, past a 2 s budget; the pass does not wait for it.
    expect(await pass(store, 2_000)).toMatchObject({ texted: 1, budgetSpent: true });
    expect(performance.now() - began).toBeLessThan(2_000);
    vi.setSystemTime(afternoon + 61_000);
    expect(await pass(store, 2_000)).toMatchObject({ texted: 1, budgetSpent: false });
    expect(receiver.texted(phones).map((request) => request.phone)).toStrictEqual(phones);
  });

  it("skip a number with no consent record, and fail one whose zones share no sending hour", async () => {
    vi.stubEnv("INVITE_HOURS", "9-10");
    const store = await open(engine);
    // Tied to its number by the upgrade only: no consent in force.
    const [tied] = numbers("12", 1);
    await recordConsent(store, {
      evidence: plainEvidence(tied!, disclosure),
      leadId: newWebhookId(),
      at: afternoon - 1_000,
      putsInForce: false,
    });
    // A +1 number of no region: every zone of +1, Guam to Bermuda, which share no hour from 9 to 10.
    const nowhere = `+15550101${block}12`;
    await signUp(store, nowhere, afternoon - 1_000);
    const id = newWebhookId();
    await store.db
      .insertInto("invitations")
      .values({ id, phone: tied!, wave: `${engine}-odd`, position: 0, consent_id: "con_x", text })
      .execute();
    await store.db
      .insertInto("outbox")
      .values({
        id,
        receiver: INVITATIONS,
        payload: JSON.stringify({ phone: tied, text }),
        state: "queued",
        created_at: afternoon,
        next_attempt_at: afternoon,
      })
      .execute();
    await queueWave(store, {
      name: `${engine}-nowhere`,
      selection: { phones: [nowhere] },
      text: () => text,
      now: afternoon,
    });
    expect(await pass(store)).toMatchObject({ skipped: 1, failed: 1, texted: 0 });
    expect((await listInvitations(store, { phone: tied })).map((row) => [row.state, row.last_failure])).toStrictEqual([
      ["skipped", "consent none"],
    ]);
    expect(
      (await listInvitations(store, { phone: nowhere })).map((row) => [row.state, row.last_failure]),
    ).toStrictEqual([["failed", "no sending hours in its time zones"]]);
    expect(receiver.received.filter((request) => [tied, nowhere].includes(request.phone))).toStrictEqual([]);
  });

  it("record a refusal without a code as refused, with no code", async () => {
    const store = await open(engine);
    const [phone] = numbers("13", 1);
    await signUp(store, phone!, afternoon - 1_000);
    receiver.refuse(phone!, null);
    await queueWave(store, {
      name: `${engine}-nocode`,
      selection: { phones: [phone!] },
      text: () => text,
      now: afternoon,
    });
    expect(await pass(store)).toMatchObject({ refused: 1 });
    expect((await listInvitations(store, { phone }))[0]).toMatchObject({
      state: "refused",
      answer: "texted:false",
      carrier_code: null,
    });
  });

  it("record a text answered after the sender lost its claim, and nothing else from a sender that lost it", async () => {
    const store = await open(engine);
    const [textedPhone, failed] = numbers("14", 2);
    for (const phone of [textedPhone, failed]) await signUp(store, phone!, afternoon - 1_000);
    await queueWave(store, {
      name: `${engine}-lost`,
      selection: { phones: [textedPhone!, failed!] },
      text: () => text,
      now: afternoon,
    });
    const rows = await listInvitations(store, { wave: `${engine}-lost` });
    for (const row of rows) await holdAs(store, row, "new-holder");
    await settleAs(store, rows[0]!, "old-holder", { state: "texted", delivered_at: afternoon }, texted);
    await settleAs(
      store,
      rows[1]!,
      "old-holder",
      { state: "queued", rounds: 1, next_attempt_at: afternoon + 60_000, last_failure: "timeout" },
      { ok: false, reason: "timeout" },
    );
    const settled = await listInvitations(store, { wave: `${engine}-lost` });
    expect(settled.map((row) => [row.state, row.attempts])).toStrictEqual([
      ["texted", 1],
      ["queued", 0],
    ]);
    expect(await holderOf(store, settled[0]!.id)).toBeNull();
    expect(await holderOf(store, settled[1]!.id)).toBe("new-holder");
    // The new holder dies too. The claim it left runs out; the next pass sends it, marked as a redelivery although
    // no attempt was ever recorded: the dead holder may have texted it.
    vi.setSystemTime(afternoon + 90_000);
    expect(await pass(store)).toMatchObject({ texted: 1 });
    expect(receiver.received.filter((request) => request.phone === failed)).toStrictEqual([
      expect.objectContaining({ redeliverySince: String(afternoon / 1000) }),
    ]);
    // A texted invitation stays texted whatever a later sender says.
    await settleAs(store, rows[0]!, "new-holder", { state: "refused" }, refusal("21610"));
    expect((await listInvitations(store, { phone: textedPhone }))[0]).toMatchObject({ state: "texted" });
  });

  it("plan, queue and tell apart more numbers than one statement binds (over 450, over 40 rows)", async () => {
    const store = await open(engine);
    const phones = Array.from({ length: 520 }, (_, i) => `+1303${block}15${String(i).padStart(4, "0")}`);
    await inTransaction(store, async (db) => {
      for (const phone of phones)
        await recordConsent(db, {
          evidence: plainEvidence(phone, disclosure),
          leadId: newWebhookId(),
          at: afternoon - 1_000,
        });
    });
    await queueWave(store, {
      name: `${engine}-first`,
      selection: { phones: phones.slice(0, 460) },
      text: () => text,
      now: afternoon,
    });
    const plan = await planWave(store, { phones });
    expect(plan.chosen).toHaveLength(60);
    expect(plan.leftOut).toStrictEqual({ revoked: 0, invited: 460, noRecord: 0, country: 0, welcome: 0 });
    expect(
      await queueWave(store, { name: `${engine}-rest`, selection: { phones }, text: () => text, now: afternoon }),
    ).toMatchObject({ queued: 60 });
    expect(await listInvitations(store, { wave: `${engine}-first` })).toHaveLength(460);
    expect(
      (
        await store.db
          .selectFrom("invitation_waves")
          .selectAll()
          .where("name", "=", `${engine}-first`)
          .executeTakeFirst()
      )?.size,
    ).toBe(460);
  });

  it("keep invitations as long as consent records, then forget them", async () => {
    const store = await open(engine);
    const [old] = numbers("5", 1);
    await signUp(store, old!, 1_000);
    await queueWave(store, { name: `${engine}-old`, selection: { phones: [old!] }, text: () => text, now: 2_000 });
    expect(await forgetOldInvitations(store, 1_999)).toBe(0);
    expect(await forgetOldInvitations(store, 2_001)).toBe(1);
    expect(await listInvitations(store, { phone: old })).toStrictEqual([]);
  });
});

describe("mayHaveReachedCarrier", () => {
  it("is false only for a failure that came before any text, by failureOf's words", () => {
    const cases = {
      // Never let in, or Twilio refused the request itself: no message was created.
      "status 401 signature": false,
      "status 400 body": false,
      "status 404": false,
      "status 499": false,
      "redirect 302": false,
      "status 503 twilio_not_configured": false,
      "status 503 twilio_refused 401": false,
      "status 503 twilio_refused 429": false,
      // Twilio may have taken the text before the answer was lost.
      "status 503 twilio_refused 500": true,
      "status 503 twilio_unreachable": true,
      "status 503 twilio_not_configured_later": true,
      // Only the attempt's own status and reason count, not a word that looks like them.
      "status 503 redirect 500": true,
      "status 503 status 401": true,
      "status 500": true,
      "status 4000": true,
      timeout: true,
      network: true,
      "unconfirmed 200": true,
    };
    expect(
      Object.fromEntries(Object.keys(cases).map((failure) => [failure, mayHaveReachedCarrier(failure)])),
    ).toStrictEqual(cases);
  });
});
