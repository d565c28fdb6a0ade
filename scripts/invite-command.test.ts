import { userInfo } from "node:os";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { plainEvidence } from "@/tests/support/waitlist-lead";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { smsTexts } from "@/lib/sms/program";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { revokeConsent } from "@/server/consent/consent-changes";
import { newWebhookId } from "@/server/outbox/outbox-store";
import { consentCommand } from "./consent-command";
import { invitationPass } from "@/server/invitations/invitation-pass";
import { commandOutput } from "@/tests/support/command-output";
import { cancelReport, inviteCommand } from "./invite-command";
import { activityPage } from "@/server/operators/activity-store";
import { inviteSecretForTests, stubInvitationSettings } from "@/tests/support/invitation-settings";

const invite = (...args: string[]) => commandOutput(inviteCommand, args);

const disclosure = disclosureOf("I agree to receive recurring automated texts. Reply STOP to cancel.");
const link = "https://sous.example/start";
// Fictional numbers of New York, in sign-up order.
const phones = Array.from({ length: 6 }, (_, i) => `+1212555010${i}`);
const records: string[] = [];
const folder = mkdtempSync(path.join(tmpdir(), "sous-invite-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const at = path.join(folder, name);
  writeFileSync(at, text);
  return at;
};
const rows = async () => (await database(readEnv())).db.selectFrom("invitations").selectAll().execute();
const waveRows = async () => (await database(readEnv())).db.selectFrom("invitation_waves").selectAll().execute();

beforeAll(async () => {
  const store = await database(readEnv());
  for (const [i, phone] of phones.entries())
    records.push(
      await recordConsent(store, {
        evidence: plainEvidence(phone, disclosure),
        leadId: newWebhookId(),
        at: 1_000 + i,
      }),
    );
  // The fifth number texted STOP.
  await revokeConsent(store, { phone: phones[4]!, channel: "sms", source: "workflow", at: 5_000 });
});

beforeEach(() => stubInvitationSettings(link));

describe("npm run invite", () => {
  it("refuses bad input with a clear message and changes nothing", async () => {
    const before = { invitations: await rows(), waves: await waveRows() };
    const refusals: Array<[string[], RegExp]> = [
      [["send", "--next", "0", "--wave", "w"], /--next takes a whole number of 1 or more, not 0/],
      [["send", "--next", "two", "--wave", "w"], /--next takes a whole number of 1 or more, not two/],
      [["plan"], /one of --next N, --all or --phones FILE/],
      [["plan", "--all", "--next", "2"], /one of --next N, --all or --phones FILE/],
      [["send", "--all"], /--wave NAME is needed/],
      [["send", "--all", "--wave", "=cmd"], /--wave: a name of letters/],
      [["status", "--wave", "nope"], /no wave named nope/],
      [["export", "--wave", "nope"], /no wave named nope/],
      [["cancel", "--wave", "nope"], /no wave named nope/],
      [["export", "--format", "xlsx"], /--format is csv or jsonl/],
      [["resend"], /unknown command resend/],
      [["send", "--phones", path.join(folder, "missing.txt"), "--wave", "w"], /cannot read .*missing\.txt: ENOENT/],
    ];
    for (const [args, message] of refusals) {
      const { code, stderr } = await invite(...args);
      expect(code, args.join(" ")).toBe(1);
      expect(stderr, args.join(" ")).toMatch(message);
    }
    // A phones file with malformed lines: each is named, none is queued.
    const bad = file("bad.txt", `# the chefs of the first wave\n${phones[0]}\n555-12\n\n(212) 555-0101\nnot a phone\n`);
    const malformed = await invite("send", "--phones", bad, "--wave", "w");
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('line 3: "555-12" is not a phone number');
    expect(malformed.stderr).toContain('line 6: "not a phone" is not a phone number');
    expect(malformed.stderr).toContain("2 lines of");
    expect(malformed.stderr).toContain("nothing was done");
    // No INVITE_WEBHOOK_URL, or no INVITE_URL: nothing queued, no wave recorded.
    vi.stubEnv("INVITE_WEBHOOK_URL", "");
    const noWebhook = await invite("send", "--all", "--wave", "w");
    expect(noWebhook).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/not set: INVITE_WEBHOOK_URL .*nothing was queued/),
    });
    vi.stubEnv("INVITE_WEBHOOK_URL", "http://127.0.0.1:9/invite");
    vi.stubEnv("INVITE_URL", "");
    expect((await invite("send", "--all", "--wave", "w")).stderr).toMatch(/not set: INVITE_URL/);
    vi.stubEnv("INVITE_URL", link);
    // No secret and no auth header: the invitations would go out unsigned, so nothing is queued unless told so.
    vi.stubEnv("INVITE_WEBHOOK_SECRET", "");
    expect(await invite("send", "--all", "--wave", "w")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /INVITE_WEBHOOK_SECRET is not set, nor INVITE_WEBHOOK_AUTH_HEADER.*--unsigned.*nothing was queued/s,
      ),
    });
    expect({ invitations: await rows(), waves: await waveRows() }).toStrictEqual(before);
    // The auth header without the secret: sent so, as the start-up line says (server/ops/startup.test.ts).
    vi.stubEnv("INVITE_WEBHOOK_AUTH_HEADER", "X-Invite-Key: invite-header-value-0123456789");
    expect(
      await invite("send", "--phones", file("header.txt", `${phones[0]}\n`), "--wave", "header-only"),
    ).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("Queued 1 invitation in wave header-only"),
    });
    expect((await invite("cancel", "--wave", "header-only")).code).toBe(0);
    vi.stubEnv("INVITE_WEBHOOK_AUTH_HEADER", "");
    vi.stubEnv("INVITE_WEBHOOK_SECRET", inviteSecretForTests);
    // The working twin: the same wave, set up right, is queued.
    const good = file("good.txt", `# the chefs of the first wave\n${phones[0]}\n\n(212) 555-0101\n`);
    expect(await invite("send", "--phones", good, "--wave", "w")).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("Queued 2 invitations in wave w"),
    });
  });

  it("plans in sign-up order, queues once per number, and says who is left out and why", async () => {
    const plan = await invite("plan", "--next", "2", "--json");
    expect(JSON.parse(plan.stdout)).toStrictEqual({
      chosen: [
        { phone: phones[2], consentId: records[2], signedUpAt: new Date(1_002).toISOString() },
        { phone: phones[3], consentId: records[3], signedUpAt: new Date(1_003).toISOString() },
      ],
      later: 1,
      leftOut: { revoked: 1, invited: 2, noRecord: 0, country: 0, welcome: 0 },
      notWelcomed: [],
    });
    const sent = await invite("send", "--next", "2", "--wave", "second");
    expect(sent.stdout).toContain(`  ${phones[2]}  signed up ${new Date(1_002).toISOString()}  consent ${records[2]}`);
    expect(sent.stdout).toContain(
      "Left out: 1 revoked, 2 already invited, 0 with no consent record, 0 outside WAITLIST_PHONE_COUNTRIES, 0 whose welcome was not texted.",
    );
    expect(sent.stdout).toContain(
      "Queued 2 invitations in wave second: the server sends them at 60 a minute, between 9:00 and 20:00",
    );
    // A second wave naming numbers invited already texts none of them; a used name is refused.
    const again = await invite(
      "send",
      "--phones",
      file("again.txt", `${phones[0]}\n${phones[2]}\n${phones[4]}\n`),
      "--wave",
      "third",
    );
    expect(again.stdout).toContain("0 numbers would be texted");
    expect(again.stdout).toContain(
      "Left out: 1 revoked, 2 already invited, 0 with no consent record, 0 outside WAITLIST_PHONE_COUNTRIES, 0 whose welcome was not texted.",
    );
    expect(again.stdout).toContain("Nothing to queue: wave third was not recorded.");
    expect((await invite("send", "--next", "1", "--wave", "second")).stderr).toContain(
      "a wave named second exists already",
    );
    expect((await rows()).map((row) => row.phone).sort()).toStrictEqual([phones[0], phones[1], phones[2], phones[3]]);
  });

  it("reports by state, exports the record as CSV and JSONL, cancels what has not gone, and consent show lists a number's invitation", async () => {
    const status = JSON.parse((await invite("status", "--wave", "second", "--json")).stdout);
    expect(status).toStrictEqual({
      wave: "second",
      counts: { queued: 2, waiting: 0, texted: 0, refused: 0, skipped: 0, failed: 0, cancelled: 0 },
      retrying: 0,
      refusedByCode: {},
      waitingFor: [],
      receiver: null,
      response: { queued: 2, texted: 0, opened: 0, stopped: 0, failed: 0 },
    });
    expect((await invite("status")).stdout).toMatch(
      /Every wave:\n {2}Queued 4, Texted 0, Opened 0, Stopped 0, Failed 0\n {2}queued +4\n/,
    );

    const jsonl = (await invite("export", "--format", "jsonl")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const csv = parse((await invite("export")).stdout, { columns: true }) as Record<string, string>[];
    // Each text with a link of its own on the site.
    const sent = smsTexts.invitation("https://sous.example/i/CODE");
    const withCode = (text: string) => text.replace(/\/i\/[\w-]{12} /, "/i/CODE ");
    expect(jsonl.map((row) => [row.phone, row.wave, row.state, withCode(row.text)])).toStrictEqual([
      [phones[0], "w", "queued", sent],
      [phones[1], "w", "queued", sent],
      [phones[2], "second", "queued", sent],
      [phones[3], "second", "queued", sent],
    ]);
    expect(new Set(jsonl.map((row) => row.text)).size).toBe(4);
    expect(csv.map((row) => [row.id, row.phone, row.consent_id, row.text])).toStrictEqual(
      jsonl.map((row) => [row.id, row.phone, row.consent_id, row.text]),
    );
    expect(jsonl.map((row) => row.consent_id)).toStrictEqual(records.slice(0, 4));

    expect((await invite("cancel", "--wave", "second", "--as", "founder@sous.example")).stdout).toBe(
      "Cancelled 2 invitations of wave second not sent yet. 2 never reached the carrier (never tried, or refused before any text): a later wave can take them (npm run invite -- plan). None was being sent.\n",
    );
    expect(JSON.parse((await invite("status", "--json")).stdout).counts).toMatchObject({ queued: 2, cancelled: 2 });
    // Each send, cancel and export in the activity log, by the machine's user or the operator --as names, with
    // the wave and its count; no number.
    const lines = await activityPage(await database(readEnv()), { limit: 100 });
    const of = (action: string) =>
      lines.filter((line) => line.action === action).map(({ actor, subject, rows }) => `${actor} ${subject} ${rows}`);
    const user = userInfo().username;
    expect(of("wave sent")).toStrictEqual([`${user} second 2`, `${user} w 2`, `${user} header-only 1`]);
    expect(of("wave cancelled")).toStrictEqual(["founder@sous.example second 2", `${user} header-only 1`]);
    expect(of("export").slice(0, 2)).toStrictEqual([`${user} invitations 4`, `${user} invitations 4`]);
    expect(JSON.stringify(lines)).not.toMatch(/\+1212/);

    const shown = await commandOutput(consentCommand, ["show", phones[2]!]);
    expect(shown.stdout).toMatch(new RegExp(`launch invitation msg_[\\w-]+  wave second  cancelled`));
    expect(shown.stdout).toContain(`relying on consent ${records[2]}`);
    expect(withCode(shown.stdout)).toContain(`text        "${sent}"`);
    const json = JSON.parse((await commandOutput(consentCommand, ["show", phones[2]!, "--json"])).stdout);
    expect(json.invitations).toEqual([
      expect.objectContaining({ wave: "second", state: "cancelled", consent_id: records[2] }),
    ]);
    expect((await commandOutput(consentCommand, ["show", phones[5]!])).stdout).toContain("Launch invitation: none");
  });
});

describe("a waiting invitation", () => {
  it("says why it waits and until when, in status, export and consent show", async () => {
    // 18:00 UTC: 13:00 in New York, 08:00 in Honolulu, before INVITE_HOURS (9-20) open there at 19:00 UTC.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.parse("2026-11-27T18:00:00Z"));
    try {
      const honolulu = "+18085550123";
      const store = await database(readEnv());
      await recordConsent(store, {
        evidence: plainEvidence(honolulu, disclosure),
        leadId: newWebhookId(),
        at: 6_000,
      });
      await invite("send", "--phones", file("hawaii.txt", `${honolulu}\n`), "--wave", "hawaii");
      expect(await invitationPass(store, readEnv(), { budgetMs: 5_000 })).toMatchObject({
        waiting: 1,
        texted: 0,
      });

      const until = "2026-11-27T19:00:00.000Z";
      const status = JSON.parse((await invite("status", "--wave", "hawaii", "--json")).stdout);
      expect(status.waitingFor).toStrictEqual([{ zones: ["Pacific/Honolulu"], until, count: 1 }]);
      expect((await invite("status", "--wave", "hawaii")).stdout).toMatch(
        new RegExp(`waiting for sending hours +1  \\(1 until ${until} in Pacific/Honolulu\\)`),
      );
      const [row] = (await invite("export", "--wave", "hawaii", "--format", "jsonl")).stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(row).toMatchObject({ state: "waiting", waiting_for: "Pacific/Honolulu", waiting_until: until });
      const csv = parse((await invite("export", "--wave", "hawaii")).stdout, { columns: true }) as Record<
        string,
        string
      >[];
      expect(csv[0]).toMatchObject({ waiting_for: "Pacific/Honolulu", waiting_until: until });
      expect((await commandOutput(consentCommand, ["show", honolulu])).stdout).toContain(
        `  waiting     until ${until}, for its sending hours in Pacific/Honolulu`,
      );
      // Its twin: an invitation that is not waiting has neither.
      const [queued] = (await invite("export", "--wave", "second", "--format", "jsonl")).stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(queued).toMatchObject({ waiting_for: null, waiting_until: null });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("cancelReport", () => {
  it("says what a cancel stopped, what a later wave can take, what stays invited and what still goes", () => {
    expect(cancelReport("w", { cancelled: 0, givenBack: 0, onTheirWay: 0 })).toBe(
      "Cancelled 0 invitations of wave w not sent yet. None was being sent.",
    );
    expect(cancelReport("w", { cancelled: 1, givenBack: 1, onTheirWay: 1 })).toBe(
      "Cancelled 1 invitation of wave w not sent yet. 1 never reached the carrier (never tried, or refused before any text): a later wave can take it (npm run invite -- plan). 1 being sent now still goes.",
    );
    expect(cancelReport("w", { cancelled: 3, givenBack: 1, onTheirWay: 2 })).toBe(
      "Cancelled 3 invitations of wave w not sent yet. 1 never reached the carrier (never tried, or refused before any text): a later wave can take it (npm run invite -- plan). 2 tried before with a failure that may have reached the carrier: they stay invited. 2 being sent now still go.",
    );
    expect(cancelReport("w", { cancelled: 1, givenBack: 0, onTheirWay: 0 })).toBe(
      "Cancelled 1 invitation of wave w not sent yet. 1 tried before with a failure that may have reached the carrier: it stays invited. None was being sent.",
    );
  });
});
