import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adviceFor } from "@/server/outbox/alerts";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { activityPage } from "@/server/operators/activity-store";
import type { Actor } from "@/server/operators/operators";
import { consentsFor, stubInvitationSettings } from "@/tests/support/invitation-settings";
import { cancelWaveNamed, isWaveName, launchWave, refusalWords, WaveError, waveStatus } from "./launch";

// As the console's guard would make it for this operator.
const by = { actor: "founder@sous.example", via: "console" } as Actor;
const store = async () => database(readEnv());
// Fictional numbers of New York, in sign-up order.
const phones = Array.from({ length: 4 }, (_, i) => `+1212555020${i}`);

beforeAll(async () => consentsFor(await store(), phones));
beforeEach(() => stubInvitationSettings());

/** What launchWave refused with: its code and words, or "queued". */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "queued",
    (error: unknown) => (error instanceof WaveError ? { code: error.code, message: error.message } : error),
  );

describe("a wave's name", () => {
  it("letters, digits, '.', '_' or '-', 64 at most, starting with a letter or digit", () => {
    for (const name of ["launch-1", "a", "Wave_2.b", "9", "x".repeat(64)]) expect(isWaveName(name), name).toBe(true);
    for (const name of ["", "-launch", ".x", "_x", "launch 1", "launch!", "launch-1\n", "x".repeat(65), "wave/1"])
      expect(isWaveName(name), JSON.stringify(name)).toBe(false);
  });
});

describe("sending a wave", () => {
  it("is refused, naming each setting missing, when the invitations would have nowhere to go; nothing queued", async () => {
    vi.stubEnv("INVITE_WEBHOOK_URL", "");
    vi.stubEnv("INVITE_URL", "");
    vi.stubEnv("SITE_URL", "");
    expect(await refusal(launchWave(await store(), { name: "nowhere", selection: { next: 1 }, by }))).toStrictEqual({
      code: "unset",
      message:
        "not set: INVITE_WEBHOOK_URL (where the invitations go: the workflow that texts them), INVITE_URL (where " +
        "the invitation's link leads), SITE_URL (the site's address, which the link is on); nothing was queued",
    });
    // On Vercel its production domain is the site's address.
    vi.stubEnv("VERCEL_PROJECT_PRODUCTION_URL", "sous.example");
    vi.stubEnv("INVITE_URL", "https://sous.example/start");
    expect(await refusal(launchWave(await store(), { name: "nowhere", selection: { next: 1 }, by }))).toMatchObject({
      code: "unset",
      message:
        "not set: INVITE_WEBHOOK_URL (where the invitations go: the workflow that texts them); nothing was queued",
    });
    expect(await waveStatus(await store(), "nowhere")).toMatchObject({ counts: { queued: 0 } });
  });

  it("is refused unsigned unless asked so, and says why; asked so, it queues", async () => {
    vi.stubEnv("INVITE_WEBHOOK_SECRET", "");
    expect(await refusal(launchWave(await store(), { name: "unsigned-1", selection: { next: 1 }, by }))).toStrictEqual({
      code: "unsigned",
      message:
        "INVITE_WEBHOOK_SECRET is not set, nor INVITE_WEBHOOK_AUTH_HEADER: the invitations would go out unsigned, and " +
        "anyone who learns the URL could have the workflow text any number. Set the secret (docs/webhooks.md), or " +
        "pass --unsigned to send them so; nothing was queued",
    });
    const { queued } = await launchWave(await store(), {
      name: "unsigned-1",
      selection: { next: 1 },
      unsigned: true,
      by,
    });
    expect(queued.queued).toBe(1);
    await cancelWaveNamed(await store(), { name: "unsigned-1", by });
  });

  it("queues only when the plan it makes texts the count typed: another count queues nothing and keeps the name free", async () => {
    const store_ = await store();
    const waves = async () => (await store_.db.selectFrom("invitation_waves").select("name").execute()).length;
    const before = await waves();
    expect(
      await refusal(launchWave(store_, { name: "counted-1", selection: { next: 1 }, count: 2, by })),
    ).toStrictEqual({
      code: "count",
      message: "the plan texts 1 now, not the 2 typed; nothing was queued",
    });
    expect(await waves()).toBe(before);
    const { queued } = await launchWave(store_, { name: "counted-1", selection: { next: 1 }, count: 1, by });
    expect(queued.queued).toBe(1);
    await cancelWaveNamed(store_, { name: "counted-1", by });
  });

  it("writes who sent it and how many to the activity, once it queued any; a name is used once", async () => {
    const { queued } = await launchWave(await store(), { name: "activity-1", selection: { next: 2 }, by });
    expect(queued.queued).toBe(2);
    const [line] = await activityPage(await store(), { limit: 1 });
    expect(line).toMatchObject({ ...by, action: "wave sent", subject: "activity-1", rows: 2 });
    expect(await refusal(launchWave(await store(), { name: "activity-1", selection: { next: 1 }, by }))).toStrictEqual({
      code: "exists",
      message: "a wave named activity-1 exists already; nothing was queued (a name is used once)",
    });

    // Everyone already invited: a wave of none is recorded, and no activity line says one was sent.
    await launchWave(await store(), { name: "rest", selection: { all: true }, by });
    const before = (await activityPage(await store(), { limit: 1 }))[0]!.id;
    const { queued: none } = await launchWave(await store(), { name: "nobody-left", selection: { all: true }, by });
    expect(none.queued).toBe(0);
    expect((await activityPage(await store(), { limit: 1 }))[0]!.id).toBe(before);
  });
});

describe("a carrier's refusal", () => {
  it("reads in words: the codes Twilio gives most, the rest by number", () => {
    expect(
      ["21610", "21614", "21211", "30002", "30003", "30008", "30009", "130003", "300031", "21612", null].map(
        refusalWords,
      ),
    ).toStrictEqual([
      "replied STOP",
      "not a mobile number",
      "invalid number",
      "refused by the carrier (code 30002)",
      "unreachable or filtered",
      "unreachable or filtered",
      "refused by the carrier (code 30009)",
      "refused by the carrier (code 130003)",
      "refused by the carrier (code 300031)",
      "refused by the carrier (code 21612)",
      "refused by the carrier",
    ]);
  });
});

describe("a wave's status", () => {
  it("counts the refused by carrier code (unknown without one), and says since when the workflow fails and what to do", async () => {
    const { db } = await store();
    await launchWave(await store(), { name: "refusals", selection: { all: true }, by });
    // The invitations of an earlier wave, as Twilio answered them.
    const rows = await db.selectFrom("invitations").select("id").where("wave", "=", "activity-1").execute();
    const codes = ["30007", null];
    for (const [i, row] of rows.entries()) {
      await db.updateTable("invitations").set({ carrier_code: codes[i] }).where("id", "=", row.id).execute();
      await db.updateTable("outbox").set({ state: "refused" }).where("id", "=", row.id).execute();
    }
    await db
      .insertInto("receivers")
      .values({
        form: "invitations",
        failing_since: Date.UTC(2026, 11, 4, 9),
        last_failure: "status 503",
        probed_at: null,
      })
      .execute();

    const status = await waveStatus(await store(), "activity-1");
    expect(status.counts).toMatchObject({ refused: 2, queued: 0 });
    expect(status.refusedByCode).toStrictEqual({ "30007": 1, unknown: 1 });
    expect(status.receiver).toStrictEqual({
      failingSince: "2026-12-04T09:00:00.000Z",
      lastFailure: "status 503",
      advice: adviceFor("invitations", "status 503"),
    });
    // Its twin: once the workflow answers again, no receiver is named.
    await db.updateTable("receivers").set({ failing_since: null }).where("form", "=", "invitations").execute();
    expect((await waveStatus(await store(), "activity-1")).receiver).toBeNull();
  });
});
