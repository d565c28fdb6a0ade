import { commandOutput } from "@/tests/support/command-output";
import { userInfo } from "node:os";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { emptyWaitlistValues } from "@/lib/forms/waitlist";
import { idleState } from "@/lib/forms/form-state";
import { sendForm } from "@/server/forms/send-form";
import { database } from "@/server/db/connect";
import { leadById, listLeads } from "@/server/outbox/outbox-store";
import { readEnv } from "@/server/env";
import { stubActionEnv } from "@/tests/support/action-env";
import { formData } from "@/tests/support/form-data";
import { cookieJar } from "@/tests/support/request-headers";
import { setupWebhookReceiver } from "@/tests/support/setup-webhook-receiver";
import { activityPage } from "@/server/operators/activity-store";
import { leadsCommand } from "./leads-command";

const receiver = setupWebhookReceiver();
const hook = () => `${receiver.url}/hooks/waitlist`;
let token = 0;

beforeEach(() => {
  stubActionEnv("WAITLIST_WEBHOOK_URL", hook());
  // Nothing here is about a timeout: an attempt gets 3 s, not the 150 ms a form's tests give it, which a loaded
  // machine can miss (a clean clone's CI run of 58ac625 found both leads of a retry still pending).
  vi.stubEnv("WEBHOOK_ATTEMPT_TIMEOUT_MS", "3000");
  vi.stubEnv("RATE_LIMIT_WAITLIST_PER_MINUTE", "1000");
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

/** The operator's command on this test file's database: what it printed. */
async function leads(...args: string[]) {
  let stdout = "";
  await leadsCommand(
    args,
    (line) => (stdout += `${line}\n`),
    (text) => (stdout += text),
  );
  return stdout;
}

/** A sign-up kept as a held lead (the webhook unset while it is posted); resolves to its webhook-id and name. */
async function heldSignup() {
  token += 1;
  const name = `Ada Operator l${token}`;
  vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
  const state = await sendForm(
    "waitlist",
    idleState(emptyWaitlistValues),
    formData({ name, phone: `(555) 300-${String(token).padStart(4, "0")}`, consent: "on" }),
  );
  vi.stubEnv("WAITLIST_WEBHOOK_URL", hook());
  expect(state.status).toBe("success");
  const store = await database(readEnv());
  const [row] = (await listLeads(store, { states: ["held"], form: "waitlist" })).filter((lead) =>
    lead.payload?.includes(name),
  );
  if (!row) throw new Error("the sign-up was not kept as a held lead");
  return { id: row.id, name };
}

const stateOf = async (id: string) => (await leadById(await database(readEnv()), id))?.state;

describe("npm run leads -- retry", () => {
  it("sends every held lead once its form has a URL again, and says so", async () => {
    const [first, second] = [await heldSignup(), await heldSignup()];
    expect(receiver.withName(first.name)).toHaveLength(0);
    const printed = await leads("retry");
    expect(printed).toMatch(/^delivered [1-9]\d*, still pending 0, dead 0, held 0\n$/);
    for (const lead of [first, second]) {
      expect(receiver.withName(lead.name)).toHaveLength(1);
      expect(await stateOf(lead.id)).toBe("delivered");
    }
  });

  it("sends one lead by its webhook-id and leaves the others", async () => {
    const [chosen, other] = [await heldSignup(), await heldSignup()];
    expect(await leads("retry", chosen.id)).toBe("delivered 1, still pending 0, dead 0, held 0\n");
    expect(receiver.withName(chosen.name)).toHaveLength(1);
    expect(receiver.withName(other.name)).toHaveLength(0);
    expect(await stateOf(other.id)).toBe("held");
    await leads("retry", other.id);
    expect(receiver.withName(other.name)).toHaveLength(1);
    // Each retry in the activity log, by the command, with the lead's webhook-id and what it delivered; no value.
    const lines = await activityPage(await database(readEnv()), { limit: 2 });
    expect(lines.map(({ actor, via, action, subject, rows }) => ({ actor, via, action, subject, rows }))).toStrictEqual(
      [
        { actor: userInfo().username, via: "command", action: "redeliver", subject: other.id, rows: 1 },
        { actor: userInfo().username, via: "command", action: "redeliver", subject: chosen.id, rows: 1 },
      ],
    );
  });

  it("refuses a webhook-id it has no open lead for", async () => {
    await expect(leads("retry", "msg_no-such-lead")).rejects.toThrow("no open lead with webhook-id msg_no-such-lead");
  });
});

describe("npm run leads -- drop", () => {
  it("deletes one lead and its delivery log, and refuses one it does not have", async () => {
    const [lead, kept] = [await heldSignup(), await heldSignup()];
    expect(await leads("drop", lead.id)).toBe(`dropped ${lead.id}\n`);
    expect(await stateOf(lead.id)).toBeUndefined();
    await expect(leads("drop", lead.id)).rejects.toThrow(`no open lead with webhook-id ${lead.id}`);
    // Recorded once: the refused second drop is not an action.
    const dropped = (await activityPage(await database(readEnv()), { limit: 50 })).filter(
      (line) => line.action === "drop",
    );
    expect(dropped.map(({ actor, subject, rows }) => ({ actor, subject, rows }))).toStrictEqual([
      { actor: userInfo().username, subject: lead.id, rows: 1 },
    ]);
    await leads("retry");
    expect(receiver.withName(lead.name)).toHaveLength(0);
    // The retry that did not send it sent the lead that was not dropped.
    expect(receiver.withName(kept.name)).toHaveLength(1);
  });
});

describe("npm run leads -- list", () => {
  it("lists open leads without their values, and with them on --show", async () => {
    const lead = await heldSignup();
    const plain = await leads();
    expect(plain).toContain(lead.id);
    expect(plain).not.toContain(lead.name);
    expect(await leads("--show")).toContain(lead.name);
    const [summary] = JSON.parse(await leads("list", "--json", "--state", "held")).filter(
      (row: { id: string }) => row.id === lead.id,
    );
    expect(summary).toMatchObject({ id: lead.id, form: "waitlist", state: "held", attempts: 0 });
    expect(JSON.stringify(summary)).not.toContain(lead.name);
  });
});

describe("npm run leads -- export, as an attacker would fill it", () => {
  it("writes no cell that starts with a formula character, for either form; an E.164 phone keeps its +; JSONL keeps the values as sent", async () => {
    const { emptyContactValues } = await import("@/lib/forms/contact");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    vi.stubEnv("CONTACT_WEBHOOK_URL", "");
    const signup = { name: '=HYPERLINK("http://evil.test/x","Open")', phone: "(555) 300-9901", consent: "on" };
    const request = {
      name: "-2+3+cmd|' /C calc'!A0",
      email: "=cmd@evil.test",
      phone: "+1 555 300 9902",
      clientCount: "1-5",
      currentTools: "+SUM(A1)",
      message: "=1+1",
    };
    expect((await sendForm("waitlist", idleState(emptyWaitlistValues), formData(signup))).status).toBe("success");
    // A campaign's fields are typed by whoever wrote the link: spreadsheet-safe too.
    cookieJar.set("sous_touch", "source=%3Dcmd%7Ccalc&campaign=%2BSUM(A1)&landing_page=%2F");
    expect((await sendForm("contact", idleState(emptyContactValues), formData(request))).status).toBe("success");

    const { parse } = await import("csv-parse/sync");
    // Each form's export holds that form's leads only, under its own header: a sign-up's number with its consent,
    // a quote request's six fields.
    const headerOf = async (form: string) =>
      (parse(await leads("export", "--form", form, "--format", "csv"), { to_line: 1 }) as string[][])[0];
    const sources = ["source", "medium", "campaign", "referrer", "landing_page"];
    expect(await headerOf("waitlist")).toStrictEqual([
      "id",
      "state",
      "createdAt",
      "consent",
      "phone",
      "name",
      ...sources,
    ]);
    expect(await headerOf("contact")).toStrictEqual([
      "id",
      "state",
      "createdAt",
      ...Object.keys(emptyContactValues),
      ...sources,
    ]);
    const waitlist = (
      parse(await leads("export", "--form", "waitlist", "--format", "csv"), { columns: true }) as Record<
        string,
        string
      >[]
    ).filter((row) => row.phone === "+15553009901");
    expect(waitlist).toHaveLength(1);
    expect(waitlist[0]).toMatchObject({ name: `'${signup.name}`, phone: "+15553009901", source: "direct" });
    const contact = (
      parse(await leads("export", "--form", "contact", "--format", "csv"), { columns: true }) as Record<
        string,
        string
      >[]
    ).filter((row) => row.message === "'=1+1");
    expect(contact).toHaveLength(1);
    expect(contact[0]).toMatchObject({
      name: `'${request.name}`,
      email: `'${request.email}`,
      phone: `'${request.phone}`,
      currentTools: `'${request.currentTools}`,
      clientCount: "1-5",
      source: "'=cmd|calc",
      campaign: "'+SUM(A1)",
      landing_page: "/",
    });
    // Values a form trims, kept as an older store kept them: a leading tab or carriage return starts a formula too.
    const { insertLead } = await import("@/server/outbox/outbox-store");
    const { waitlistLead } = await import("@/tests/support/waitlist-lead");
    const untrimmed = { phone: "+15553009903", name: "\t=1+1", note: "\r=SUM(A1)" };
    await insertLead(await database(readEnv()), waitlistLead(untrimmed.phone, { payload: JSON.stringify(untrimmed) }));
    const [kept] = (
      parse(await leads("export", "--form", "waitlist", "--format", "csv"), { columns: true }) as Record<
        string,
        string
      >[]
    ).filter((row) => row.phone === untrimmed.phone);
    expect(kept).toMatchObject({ name: "'\t=1+1", note: "'\r=SUM(A1)", source: "unknown", medium: "" });
    waitlist.push(kept!);

    for (const row of [...waitlist, ...contact]) {
      for (const [column, cell] of Object.entries(row))
        if (!/^\+155530099\d\d$/.test(cell)) expect(cell, column).not.toMatch(/^[=+\-@\t\r]/);
    }

    const jsonl = (await leads("export", "--form", "contact", "--format", "jsonl"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { payload: Record<string, string> });
    expect(jsonl.find((row) => row.payload.message === "=1+1")?.payload).toMatchObject({
      name: request.name,
      email: request.email,
      currentTools: request.currentTools,
    });
  });
});

describe("npm run leads -- export and list, after a number revoked its consent", () => {
  it("give each sign-up its number's consent (in force, revoked, none), and --consented keeps only those in force", async () => {
    const { consentCommand } = await import("./consent-command");
    const { insertLead } = await import("@/server/outbox/outbox-store");
    const { newClaim } = await import("@/server/outbox/outbox-store");
    const { waitlistLead } = await import("@/tests/support/waitlist-lead");
    const kept = { name: "Ada Consented", phone: "(555) 300-9911", consent: "on" };
    const revoked = { name: "Bo Revoked", phone: "(555) 300-9912", consent: "on" };
    for (const signup of [kept, revoked])
      expect((await sendForm("waitlist", idleState(emptyWaitlistValues), formData(signup))).status).toBe("success");
    await consentCommand(
      ["revoke", revoked.phone, "--channel", "sms"],
      () => {},
      () => {},
    );
    // A lead kept before consent records existed: no record for its number.
    const store = await database(readEnv());
    const older = waitlistLead("+15553009913", { state: "delivered" });
    await insertLead(store, older, newClaim(0));
    // A second, older lead of a number on the list: the export shows the number once, with its latest lead.
    await insertLead(store, waitlistLead("+15553009911", { state: "dead", created_at: 1 }), newClaim(0));
    // Leads whose values are gone: one revoked before it was sent, one delivered and past retention.
    const emptiedRevoked = waitlistLead("+15553009914", { state: "revoked", payload: null });
    const pastRetention = waitlistLead("+15553009915", { state: "delivered", payload: null });
    for (const lead of [emptiedRevoked, pastRetention]) await insertLead(store, lead, newClaim(0));

    const { parse } = await import("csv-parse/sync");
    const exported = parse(await leads("export", "--form", "waitlist", "--format", "csv"), { columns: true }) as Record<
      string,
      string
    >[];
    expect(exported.filter((row) => row.phone === "+15553009911")).toHaveLength(1);
    const byPhone = new Map(exported.map((row) => [row.phone, row]));
    expect(byPhone.get("+15553009911")).toMatchObject({ state: "delivered", consent: "in force", name: kept.name });
    expect(byPhone.get("+15553009912")).toMatchObject({ state: "delivered", consent: "revoked", name: revoked.name });
    expect(byPhone.get("+15553009913")).toMatchObject({ consent: "none" });

    // What each export left out, and why, said beside it (on stderr), never in it.
    const said = await commandOutput(leadsCommand, ["export", "--form", "waitlist"]);
    expect(said.stderr).toMatch(
      /^Left out: [1-9]\d* whose number texted STOP before delivery \(its values were never kept\); [1-9]\d* past the retention period \(values removed after delivery\)\.$/,
    );
    expect(said.stdout).not.toContain("Left out");
    expect((await commandOutput(leadsCommand, ["export", "--form", "waitlist", "--consented"])).stderr).toMatch(
      /; [1-9]\d* whose consent is not in force\.$/,
    );
    const consented = parse(await leads("export", "--form", "waitlist", "--format", "csv", "--consented"), {
      columns: true,
    }) as Record<string, string>[];
    expect(consented.map((row) => row.phone)).toContain("+15553009911");
    expect(consented.every((row) => row.consent === "in force")).toBe(true);
    expect(consented.map((row) => row.phone)).not.toContain("+15553009912");
    const jsonl = (await leads("export", "--form", "waitlist", "--format", "jsonl", "--consented"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { consent: string; payload: { phone: string } });
    expect(jsonl.map((row) => row.payload.phone)).toEqual(consented.map((row) => row.phone));
    expect(new Set(jsonl.map((row) => row.payload.phone)).size).toBe(jsonl.length);

    const listed = JSON.parse(await leads("list", "--json", "--state", "all")) as Array<{
      id: string;
      form: string;
      consent?: string | null;
    }>;
    expect(listed.find((row) => row.id === older.id)).toMatchObject({ consent: "none" });
    // Without its values a lead still says what it knows: revoked by its state, else nothing (null).
    expect(listed.find((row) => row.id === emptiedRevoked.id)).toMatchObject({ consent: "revoked" });
    expect(listed.find((row) => row.id === pastRetention.id)).toMatchObject({ consent: null });
    expect(listed.filter((row) => row.form === "waitlist").every((row) => "consent" in row)).toBe(true);
    expect(listed.filter((row) => row.form === "contact").some((row) => "consent" in row)).toBe(false);
    expect(new Set(listed.filter((row) => row.form === "waitlist").map((row) => row.consent))).toEqual(
      new Set(["in force", "revoked", "none", null]),
    );

    await expect(leads("export", "--form", "contact", "--consented")).rejects.toThrow(
      "--consented is for a form that asks consent to text (waitlist)",
    );
  });
});
