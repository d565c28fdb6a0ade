import { beforeAll, beforeEach, describe, expect, it, vi, type Mock } from "vitest";
import { database, inTransaction } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { recordConsent } from "@/server/consent/consent-store";
import * as exportsModule from "@/server/console/exports";
import * as launch from "@/server/invitations/launch";
import * as waves from "@/server/invitations/waves";
import * as leadActions from "@/server/ops/lead-actions";
import { insertLead, newClaim } from "@/server/outbox/outbox-store";
import { insertSession } from "@/server/operators/operator-store";
import { addOperator, commandActor } from "@/server/operators/operators";
import { commandOutput } from "@/tests/support/command-output";
import { waitlistLead, webConsent } from "@/tests/support/waitlist-lead";
import { consentCommand } from "@/scripts/consent-command";
import { inviteCommand } from "@/scripts/invite-command";
import { leadsCommand } from "@/scripts/leads-command";
import { POST as sendRoute } from "@/app/console/invitations/send/route";
import { POST as cancelRoute } from "@/app/console/invitations/cancel/route";
import { POST as redeliverRoute } from "@/app/console/deliveries/redeliver/route";
import { POST as dropRoute } from "@/app/console/deliveries/drop/route";
import { GET as exportRoute } from "@/app/console/exports/[kind]/route";
import { cookieOf } from "./cookie";

// One implementation (issue 70): the console and the commands plan, send, cancel, export, redeliver and drop through
// the same functions. Each of those functions is wrapped here so that it still does its work and counts its calls,
// and one is changed for a moment: the console's answer and the command's both carry the change.
vi.mock("@/server/invitations/launch", async (original) => {
  const actual = await original<typeof launch>();
  return { ...actual, launchWave: vi.fn(actual.launchWave), cancelWaveNamed: vi.fn(actual.cancelWaveNamed) };
});
vi.mock("@/server/invitations/waves", async (original) => {
  const actual = await original<typeof waves>();
  return { ...actual, planWave: vi.fn(actual.planWave) };
});
vi.mock("@/server/console/exports", async (original) => {
  const actual = await original<typeof exportsModule>();
  return {
    ...actual,
    leadExport: vi.fn(actual.leadExport),
    consentExport: vi.fn(actual.consentExport),
    invitationExport: vi.fn(actual.invitationExport),
    recordExport: vi.fn(actual.recordExport),
  };
});
vi.mock("@/server/ops/lead-actions", async (original) => {
  const actual = await original<typeof leadActions>();
  return { ...actual, redeliverLeads: vi.fn(actual.redeliverLeads), dropLeadById: vi.fn(actual.dropLeadById) };
});

const shared = {
  planWave: waves.planWave,
  launchWave: launch.launchWave,
  cancelWaveNamed: launch.cancelWaveNamed,
  leadExport: exportsModule.leadExport,
  consentExport: exportsModule.consentExport,
  invitationExport: exportsModule.invitationExport,
  recordExport: exportsModule.recordExport,
  redeliverLeads: leadActions.redeliverLeads,
  dropLeadById: leadActions.dropLeadById,
} as unknown as Record<string, Mock>;

/** Which of the shared functions a call made, by name, and how many times each. */
async function calledBy(run: () => Promise<unknown>) {
  for (const spy of Object.values(shared)) spy.mockClear();
  await run();
  return Object.fromEntries(
    Object.entries(shared)
      .filter(([, spy]) => spy.mock.calls.length)
      .map(([name, spy]) => [name, spy.mock.calls.length]),
  );
}

let ownerCookie: string;
const phone = "+12125550188";
let leadId: string;

beforeAll(async () => {
  const store = await database(readEnv());
  const { operator } = await addOperator(store, { email: "owner@sous.example", role: "owner", by: commandActor });
  ownerCookie = `${cookieOf().name}=${await insertSession(store, { operatorId: operator.id })}`;
  const lead = waitlistLead(phone);
  leadId = lead.id;
  await inTransaction(store, async (tx) => {
    await insertLead(tx, lead, newClaim(0));
    await recordConsent(tx, { evidence: webConsent(phone), leadId: lead.id, at: 1_000 });
  });
});
beforeEach(() => {
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
  vi.stubEnv("INVITE_WEBHOOK_URL", "http://127.0.0.1:9/invite");
  vi.stubEnv("INVITE_WEBHOOK_SECRET", "whsec_" + Buffer.from("invite-secret-for-tests-32-bytes").toString("base64"));
  vi.stubEnv("INVITE_URL", "https://sous.example/start");
  // Nothing listens on port 9: a redelivery is tried and fails, which is all this file needs of it.
  vi.stubEnv("WAITLIST_WEBHOOK_URL", "http://127.0.0.1:9/waitlist");
});

/** A console form posted by the signed-in owner from the console's own page. */
const posted = (path: string, fields: Record<string, string>) =>
  new Request(`http://localhost${path}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "sec-fetch-site": "same-origin",
      cookie: ownerCookie,
    },
  });
const download = (kind: string) =>
  exportRoute(new Request(`http://localhost/console/exports/${kind}`, { headers: { cookie: ownerCookie } }), {
    params: Promise.resolve({ kind }),
  });

describe("the console and the commands", () => {
  it("plan and send a wave, and cancel it, through the same functions", async () => {
    const fromConsole = await calledBy(() =>
      sendRoute(posted("/console/invitations/send", { plan: "next", next: "1", name: "from-console", count: "1" })),
    );
    const command = await calledBy(() => commandOutput(inviteCommand, ["send", "--next", "1", "--wave", "from-shell"]));
    // Both plan once, inside launchWave's queueing, which checks the console's typed count against that plan.
    expect(fromConsole).toStrictEqual({ launchWave: 1 });
    expect(command).toStrictEqual({ launchWave: 1 });
    expect(await calledBy(() => commandOutput(inviteCommand, ["plan", "--next", "1"]))).toStrictEqual({ planWave: 1 });

    expect(
      await calledBy(() => cancelRoute(posted("/console/invitations/cancel", { name: "from-console" }))),
    ).toStrictEqual({ cancelWaveNamed: 1 });
    expect(await calledBy(() => commandOutput(inviteCommand, ["cancel", "--wave", "from-shell"]))).toStrictEqual({
      cancelWaveNamed: 1,
    });
  });

  it("a change to the shared send reaches both: a refusal it makes is the console's and the command's", async () => {
    const refusal = new launch.WaveError("a wave named changed exists already; nothing was queued", "exists");
    shared.launchWave!.mockRejectedValueOnce(refusal).mockRejectedValueOnce(refusal);
    const count = String((await waves.planWave(await database(readEnv()), { next: 1 })).chosen.length);
    const answer = await sendRoute(
      posted("/console/invitations/send", { plan: "next", next: "1", name: "changed", count }),
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toMatch(/^\/console\/invitations\?.*error=exists/);
    const command = await commandOutput(inviteCommand, ["send", "--next", "1", "--wave", "changed"]);
    expect(command).toMatchObject({ code: 1, stderr: expect.stringContaining("a wave named changed exists already") });
    // Its twin, without the change: the same posts are not refused so.
    expect((await commandOutput(inviteCommand, ["send", "--next", "1", "--wave", "unchanged"])).stderr).not.toContain(
      "exists already",
    );
  });

  it("export through the same functions, and record each export the same way", async () => {
    expect(await calledBy(() => download("waitlist"))).toStrictEqual({ leadExport: 1, recordExport: 1 });
    expect(
      await calledBy(() => commandOutput(leadsCommand, ["export", "--form", "waitlist", "--format", "csv"])),
    ).toMatchObject({ leadExport: 1, recordExport: 1 });
    expect(await calledBy(() => download("consents"))).toStrictEqual({ consentExport: 1, recordExport: 1 });
    expect(await calledBy(() => commandOutput(consentCommand, ["export"]))).toStrictEqual({
      consentExport: 1,
      recordExport: 1,
    });
    expect(await calledBy(() => download("invitations"))).toStrictEqual({ invitationExport: 1, recordExport: 1 });
    expect(await calledBy(() => commandOutput(inviteCommand, ["export"]))).toStrictEqual({
      invitationExport: 1,
      recordExport: 1,
    });
  });

  it("redeliver and drop a lead through the same functions", async () => {
    expect(await calledBy(() => redeliverRoute(posted("/console/deliveries/redeliver", { id: leadId })))).toStrictEqual(
      {
        redeliverLeads: 1,
      },
    );
    expect(await calledBy(() => commandOutput(leadsCommand, ["retry", leadId]))).toStrictEqual({ redeliverLeads: 1 });
    const other = waitlistLead("+12125550189");
    await insertLead(await database(readEnv()), other, newClaim(0));
    expect(
      await calledBy(() => dropRoute(posted("/console/deliveries/drop", { id: leadId, confirm: "drop" }))),
    ).toStrictEqual({ dropLeadById: 1 });
    expect(await calledBy(() => commandOutput(leadsCommand, ["drop", other.id]))).toStrictEqual({ dropLeadById: 1 });
  });
});
