import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { smsTexts } from "@/lib/sms/program";
import { checkHealth } from "@/server/ops/health";
import { alertsSettled } from "@/server/outbox/alerts";
import { failingSinceOf, stopFailing } from "@/server/outbox/alert-store";
import { recordConsent } from "@/server/consent/consent-store";
import { revokeConsent } from "@/server/consent/consent-changes";
import { INVITATIONS, readEnv } from "@/server/env";
import { invitationSending } from "@/server/invitations/invitation-pass";
import { listInvitations } from "@/server/invitations/invitation-store";
import { cancelInvitations, queueWave } from "@/server/invitations/waves";
import { newWebhookId, listLeads } from "@/server/outbox/outbox-store";
import { leadSending } from "@/server/forms/leads";
import { probeReceiver } from "@/server/outbox/pass";
import { startInviteReceiver } from "@/tests/support/invite-receiver";
import { setupLeadSending, submitted } from "@/tests/support/lead-sending";
import { webConsent } from "@/tests/support/waitlist-lead";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { runTasks, taskNames } from "./scheduler";

const { receiver, store, payload, send, logged } = setupLeadSending();
const probeInvitations = async () =>
  (await probeReceiver(await store(), readEnv(), invitationSending, INVITATIONS))?.state ?? "none";
const at = Date.parse("2026-11-27T18:00:00Z");
const seconds = (n: number) => at + n * 1000;

beforeEach(async () => {
  vi.stubEnv("CONTACT_WEBHOOK_URL", `${receiver.url}/hooks/contact`);
  // Two quick rounds, then ten minutes: the outage below outlasts the quick ones.
  vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1,1,600");
  vi.stubEnv("WEBHOOK_MAX_RETRIES", "0");
  const { db } = await store();
  for (const table of ["receivers", "alert_states", "alerts"] as const) await db.deleteFrom(table).execute();
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(at);
  receiver.outage(undefined);
});
afterEach(() => void vi.useRealTimers());

/** A pass of the schedule at `now`, once the alerts it started are done. */
async function passAt(now: number) {
  vi.setSystemTime(now);
  const { leads } = await runTasks(["retention", "leads", "alerts review"], { via: "timer" });
  await alertsSettled();
  return leads!;
}

/** Three sign-ups and a quote request sent while the workflow answers 503, then two quick rounds failed too. */
async function failedTwice(token: string) {
  receiver.outage(503);
  const bodies = [payload(token), payload(token), payload(token)];
  for (const body of bodies) expect((await send(body)).ok).toBe(false);
  const quote = {
    name: `Julia ${token}`,
    email: "julia@example.com",
    phone: "",
    clientCount: "1-5",
    currentTools: "",
    message: `Quote ${token}`,
  };
  expect((await submitted("contact", quote)).ok).toBe(false);
  await alertsSettled();
  await passAt(seconds(2));
  await passAt(seconds(4));
  const waiting = await listLeads(await store(), { states: ["pending"] });
  // Ten minutes away now, each lead with two rounds spent.
  expect(waiting.map((row) => [row.rounds, row.next_attempt_at - seconds(4) >= 590_000])).toStrictEqual(
    Array.from({ length: 4 }, () => [2, true]),
  );
  return { names: [...bodies.map((body) => body.name), quote.name] };
}

describe("a failing receiver's probe", () => {
  it("finds the workflow back within REDELIVERY_PROBE_SECONDS: every waiting lead is delivered once, not at the ten-minute step", async () => {
    const { names } = await failedTwice("back");
    receiver.outage(undefined);
    // Its twin, before the probe is due (60 s after the failure began): nothing is sent, the leads wait.
    await passAt(seconds(30));
    for (const name of names)
      expect(receiver.withName(name).filter((request) => request.answered === 200)).toHaveLength(0);
    expect((await checkHealth(readEnv())).problems).toContain("receiver_failing");

    const summary = await passAt(seconds(61));
    expect(summary).toMatchObject({ delivered: 2, dead: 0 });
    for (const name of names)
      expect(receiver.withName(name).filter((request) => request.answered === 200)).toHaveLength(1);
    expect(await listLeads(await store(), { states: ["pending", "dead"] })).toStrictEqual([]);
    expect(await checkHealth(readEnv())).toStrictEqual({ status: "ok", problems: [] });
    expect(
      logged("receiver_probed")
        .map((line) => [line.form, line.outcome, line.level])
        .sort(),
    ).toStrictEqual([
      ["contact", "delivered", "info"],
      ["waitlist", "delivered", "info"],
    ]);
  });

  it("that fails keeps the lead's place and spends none of its schedule, and probes again a minute later, not sooner", async () => {
    await failedTwice("still-down");
    const before = await listLeads(await store(), { states: ["pending"] });
    const linesBefore = logged("scheduled_task").length;
    await passAt(seconds(61));
    const after = await listLeads(await store(), { states: ["pending"] });
    expect(after.map((row) => [row.id, row.rounds, row.next_attempt_at])).toStrictEqual(
      before.map((row) => [row.id, row.rounds, row.next_attempt_at]),
    );
    // One probe per form, each a failed attempt of its own: the lead's attempts count it.
    expect(after.reduce((sum, row) => sum + row.attempts, 0)).toBe(
      before.reduce((sum, row) => sum + row.attempts, 0) + 2,
    );
    expect(logged("receiver_probed").map((line) => [line.outcome, line.level])).toStrictEqual([
      ["pending", "warn"],
      ["pending", "warn"],
    ]);
    // A lead task that only probed (its pass had nothing due) logs its line, with the probes.
    expect(logged("scheduled_task").slice(linesBefore)).toStrictEqual([
      expect.objectContaining({
        task: "leads",
        delivered: 0,
        pending: 0,
        probed: [expect.objectContaining({ state: "pending" }), expect.objectContaining({ state: "pending" })],
      }),
    ]);

    await passAt(seconds(100));
    expect(logged("receiver_probed")).toHaveLength(2);
    // Nothing probed, nothing sent: no line.
    expect(logged("scheduled_task")).toHaveLength(linesBefore + 1);
    await passAt(seconds(122));
    expect(logged("receiver_probed")).toHaveLength(4);
  });

  it("is not sent for a receiver that works, nor for a form whose URL is unset", async () => {
    await failedTwice("unset");
    vi.stubEnv("CONTACT_WEBHOOK_URL", "");
    receiver.outage(undefined);
    await passAt(seconds(61));
    expect(logged("receiver_probed").map((line) => line.form)).toStrictEqual(["waitlist"]);
    // Working again: a minute later there is nothing to probe.
    await passAt(seconds(130));
    expect(logged("receiver_probed").map((line) => line.form)).toStrictEqual(["waitlist"]);
  });

  it("is not needed when a visitor's lead finds the workflow back first: its answer makes that form's waiting leads due at once", async () => {
    const { names } = await failedTwice("visitor");
    receiver.outage(undefined);
    vi.setSystemTime(seconds(10));
    expect((await send(payload("visitor"))).ok).toBe(true);
    await alertsSettled();
    await passAt(seconds(15));
    const [quote, ...signUps] = [names.at(-1)!, ...names.slice(0, -1)];
    for (const name of signUps)
      expect(receiver.withName(name).filter((request) => request.answered === 200)).toHaveLength(1);
    // The quote request's receiver is the same workflow here, but another form's: it waits for its own probe.
    expect(receiver.withName(quote).filter((request) => request.answered === 200)).toHaveLength(0);
    expect(logged("receiver_probed")).toStrictEqual([]);
  });

  it("sends nothing for a failing receiver with no lead waiting for a later round (only dead ones), and the pass goes on", async () => {
    vi.stubEnv("REDELIVERY_SCHEDULE_SECONDS", "1");
    vi.stubEnv("CONTACT_WEBHOOK_URL", "");
    receiver.outage(503);
    const body = payload("dead-only");
    expect((await send(body)).ok).toBe(false);
    await alertsSettled();
    await passAt(seconds(2));
    expect(await listLeads(await store(), { states: ["dead"] })).toHaveLength(1);
    const requests = receiver.withName(body.name).length;
    receiver.outage(undefined);
    await expect(passAt(seconds(61))).resolves.toMatchObject({ delivered: 0 });
    expect(receiver.withName(body.name)).toHaveLength(requests);
    expect(logged("receiver_probed")).toStrictEqual([]);
    // Still failing (its dead lead waits for `retry --dead`): the next minute looks again, and finds nothing again.
    expect((await checkHealth(readEnv())).problems).toContain("receiver_failing");
  });
});

/** The alerts forget that `form` fails, so what a probe makes due is its own doing: they release only what fails. */
async function forgetFailing(form: string) {
  await alertsSettled();
  const since = await failingSinceOf(await store(), form);
  if (since !== null) await stopFailing(await store(), { form, since, how: "idle", now: Date.now() });
}

describe("a form's probe, by itself", () => {
  it("delivered makes every waiting lead of its form due by itself, and no other form's", async () => {
    await failedTwice("deaf");
    await forgetFailing("waitlist");
    receiver.outage(undefined);
    vi.setSystemTime(seconds(61));
    expect(await probeReceiver(await store(), readEnv(), leadSending, "waitlist")).toStrictEqual({
      state: "delivered",
      answered: true,
    });
    const waiting = await listLeads(await store(), { states: ["pending"] });
    expect(waiting.map((row) => [row.receiver, row.next_attempt_at <= Date.now()]).sort()).toStrictEqual([
      ["contact", false],
      ["waitlist", true],
      ["waitlist", true],
    ]);
  });

  it("claims its lead for the attempt's whole timeout and a margin, as a pass does, so no pass takes it while it may still answer", async () => {
    await failedTwice("[delay=400]");
    receiver.outage(undefined);
    vi.setSystemTime(seconds(61));
    const probing = probeReceiver(await store(), readEnv(), leadSending, "waitlist");
    const claimedUntil = await vi.waitFor(async () => {
      const row = await (
        await store()
      ).db
        .selectFrom("outbox")
        .select("claimed_until")
        .where("claimed_by", "is not", null)
        .executeTakeFirst();
      expect(row?.claimed_until).toBeTypeOf("number");
      return row!.claimed_until!;
    });
    const claimMs = readEnv().WEBHOOK_ATTEMPT_TIMEOUT_MS + 5_000;
    expect(claimedUntil - seconds(61)).toBeGreaterThanOrEqual(claimMs);
    expect(claimedUntil - seconds(61)).toBeLessThan(claimMs + 1_000);
    await expect(probing).resolves.toMatchObject({ state: "delivered" });
  });

  it("is the lead task's alone: the invitations task, run first, leaves it each failing form's probe", async () => {
    const { names } = await failedTwice("order");
    receiver.outage(undefined);
    vi.setSystemTime(seconds(61));
    await runTasks(["invitations"], { via: "timer" });
    expect(logged("receiver_probed")).toStrictEqual([]);
    await expect(passAt(seconds(61))).resolves.toMatchObject({ delivered: 2 });
    for (const name of names)
      expect(receiver.withName(name).filter((request) => request.answered === 200)).toHaveLength(1);
  });
});

describe("the invitations' probe", () => {
  let invite: Awaited<ReturnType<typeof startInviteReceiver>>;
  beforeAll(async () => {
    invite = await startInviteReceiver();
  });
  afterAll(() => invite.close());
  const workflowSecret = newWebhookSecret();
  let wave = 0;

  /** Three invitations of New York (13:00 there) refused by the workflow's signature check two rounds running: the next round is ten minutes away. */
  async function refusedTwice() {
    wave += 1;
    invite.checkSignature(workflowSecret);
    vi.stubEnv("INVITE_WEBHOOK_URL", invite.url);
    vi.stubEnv("INVITE_WEBHOOK_SECRET", newWebhookSecret());
    vi.stubEnv("INVITE_PER_MINUTE", "6000");
    const theStore = await store();
    await theStore.db.deleteFrom("outbox").where("receiver", "=", "invitations").execute();
    for (const table of ["invitations", "invitation_waves", "invitation_pace"] as const)
      await theStore.db.deleteFrom(table).execute();
    const phones = Array.from({ length: 3 }, (_, i) => `+1212555${String(7300 + wave * 10 + i)}`);
    for (const phone of phones)
      await recordConsent(theStore, { evidence: webConsent(phone), leadId: newWebhookId(), at: at - 60_000 });
    await queueWave(theStore, {
      name: `probe-${wave}`,
      selection: { phones },
      text: () => smsTexts.invitation("https://sous.example/start"),
      now: at,
    });
    for (const second of [0, 2]) await invitationsAt(seconds(second));
    const queued = await listInvitations(theStore, { wave: `probe-${wave}` });
    expect(queued.map((row) => [row.state, row.rounds, row.next_attempt_at - seconds(2) >= 590_000])).toStrictEqual(
      Array.from({ length: 3 }, () => ["queued", 2, true]),
    );
    return { phones, queued };
  }
  /** A pass of the schedule at `now`, invitations included. */
  async function invitationsAt(now: number) {
    vi.setSystemTime(now);
    const summary = await runTasks(taskNames, { via: "timer" });
    await alertsSettled();
    return summary;
  }

  it("finds the workflow set right within REDELIVERY_PROBE_SECONDS: one invitation ahead of its schedule, then the rest in the same pass, each texted once", async () => {
    const { phones } = await refusedTwice();
    vi.stubEnv("INVITE_WEBHOOK_SECRET", workflowSecret);
    // Its twin, before the probe is due: nothing goes, and health still says failing.
    await invitationsAt(seconds(30));
    expect(invite.texted(phones)).toStrictEqual([]);
    expect((await checkHealth(readEnv())).problems).toContain("receiver_failing");

    expect((await invitationsAt(seconds(61))).invitations).toMatchObject({ texted: 2 });
    expect(
      invite
        .texted(phones)
        .map((request) => request.phone)
        .sort(),
    ).toStrictEqual([...phones].sort());
    expect(logged("receiver_probed").map((line) => [line.form, line.outcome, line.level])).toStrictEqual([
      ["invitations", "texted", "info"],
    ]);
    expect(await checkHealth(readEnv())).toStrictEqual({ status: "ok", problems: [] });
  });

  it("answered with a carrier's refusal finds the workflow working too: logged as info, the rest texted in the same pass", async () => {
    const { phones, queued } = await refusedTwice();
    vi.stubEnv("INVITE_WEBHOOK_SECRET", workflowSecret);
    // The probe takes the first queued, in sign-up order; the carrier refuses it.
    invite.refuse(queued[0]!.phone, 21610);
    expect((await invitationsAt(seconds(61))).invitations).toMatchObject({ texted: 2 });
    // All three answered 200 (the refusal too), once each.
    expect(invite.texted(phones)).toHaveLength(3);
    expect(logged("receiver_probed").map((line) => [line.form, line.outcome, line.level])).toStrictEqual([
      ["invitations", "refused", "info"],
    ]);
  });

  for (const answer of ["texted", "refused"] as const)
    it(`${answer} makes every queued invitation due by itself`, async () => {
      const { queued } = await refusedTwice();
      await forgetFailing("invitations");
      vi.stubEnv("INVITE_WEBHOOK_SECRET", workflowSecret);
      if (answer === "refused") invite.refuse(queued[0]!.phone, null);
      vi.setSystemTime(seconds(61));
      expect(await probeInvitations()).toBe(answer);
      const after = await listInvitations(await store(), { wave: `probe-${wave}` });
      expect(after.map((row) => [row.state, row.next_attempt_at <= Date.now()])).toStrictEqual([
        [answer, false],
        ["queued", true],
        ["queued", true],
      ]);
    });

  it("checks the invitation it would send as a pass does: one whose number texted STOP is skipped, a full pace waits", async () => {
    const { queued } = await refusedTwice();
    vi.stubEnv("INVITE_WEBHOOK_SECRET", workflowSecret);
    vi.stubEnv("INVITE_PER_MINUTE", "1");
    vi.setSystemTime(seconds(61));
    const requests = invite.received.length;
    await revokeConsent(await store(), { phone: queued[0]!.phone, channel: "sms", source: "workflow" });
    expect(await probeInvitations()).toBe("skipped");
    expect(await probeInvitations()).toBe("texted");
    // The pace's next slot is a minute away: the next probe sends nothing.
    expect(await probeInvitations()).toBe("pace");
    expect(invite.received).toHaveLength(requests + 1);
  });

  it("sends nothing when no invitation waits for a later round (cancelled), nor while INVITE_WEBHOOK_URL is unset", async () => {
    await refusedTwice();
    vi.stubEnv("INVITE_WEBHOOK_SECRET", workflowSecret);
    vi.setSystemTime(seconds(61));
    const requests = invite.received.length;
    vi.stubEnv("INVITE_WEBHOOK_URL", "");
    await invitationsAt(seconds(61));
    expect(logged("receiver_probed")).toStrictEqual([]);
    vi.stubEnv("INVITE_WEBHOOK_URL", invite.url);
    await cancelInvitations(await store(), `probe-${wave}`);
    expect(await probeInvitations()).toBe("none");
    expect(invite.received).toHaveLength(requests);
  });

  it("that is refused keeps the invitation's place and rounds, and probes again a minute later, not sooner", async () => {
    const { queued } = await refusedTwice();
    await invitationsAt(seconds(61));
    const after = await listInvitations(await store(), { wave: `probe-${wave}` });
    expect(after.map((row) => [row.id, row.state, row.rounds, row.next_attempt_at])).toStrictEqual(
      queued.map((row) => [row.id, row.state, row.rounds, row.next_attempt_at]),
    );
    expect(after.map((row) => row.attempts)).toStrictEqual([3, 2, 2]);
    expect(logged("receiver_probed").map((line) => [line.outcome, line.level])).toStrictEqual([["retrying", "warn"]]);
    await invitationsAt(seconds(100));
    expect(logged("receiver_probed")).toHaveLength(1);
    await invitationsAt(seconds(122));
    expect(logged("receiver_probed")).toHaveLength(2);
  });
});
