import { userInfo } from "node:os";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { consentForms } from "@/lib/forms";
import { inTransaction, database } from "@/server/db/connect";
import { insertLead, leadById, newClaim, newWebhookId } from "@/server/outbox/outbox-store";
import { activityPage } from "@/server/operators/activity-store";
import { renewConsent } from "@/server/consent/consent-changes";
import { plainEvidence } from "@/tests/support/waitlist-lead";
import { leadKey } from "@/server/forms/leads";
import { readEnv } from "@/server/env";
import { consentCommand } from "./consent-command";

/** The operator's command on this test file's database: what it printed, or its error as the command would exit with it. */
async function consent(...args: string[]) {
  let stdout = "";
  try {
    await consentCommand(
      args,
      (line) => (stdout += `${line}\n`),
      (text) => (stdout += text),
    );
  } catch (error) {
    throw { code: 1, stderr: error instanceof Error ? error.message : String(error) };
  }
  return { stdout };
}

const text = disclosureOf('I agree to texts, "with quotes", commas,\nand a line break. Reply STOP to cancel.');
const phone = "+15554000001";
let leadId: string;

beforeAll(async () => {
  const store = await database(readEnv());
  const payload = { phone, name: "Ada CLI" };
  leadId = newWebhookId();
  await inTransaction(store, async (db) => {
    await insertLead(
      db,
      {
        id: leadId,
        receiver: "waitlist",
        dedupe_key: leadKey("waitlist", payload),
        payload: JSON.stringify(payload),
        state: "pending",
        attempts: 0,
        rounds: 0,
        created_at: Date.now(),
        next_attempt_at: Date.now() + 60_000,
        last_failure: null,
        delivered_at: null,
      },
      newClaim(0),
    );
    const evidence = {
      phone,
      ip: "203.0.113.40",
      userAgent: "Mozilla/5.0 (X11; Linux), like Gecko",
      pageUrl: "https://sous.example/signup",
      javascript: true,
      disclosure: text,
      shownVersion: null,
    };
    await recordConsent(db, { evidence, leadId: leadId, at: Date.parse("2026-01-15T10:00:00Z") });
    await recordConsent(db, {
      evidence: { ...evidence, phone: "+15554000002", javascript: false },
      leadId: leadId,
      at: Date.parse("2026-03-01T10:00:00Z"),
    });
  });
  expect(consentForms).toStrictEqual([{ form: "waitlist", phoneKey: "phone" }]);
});

describe("npm run consent", () => {
  it.each(["(555) 400-0001", "555.400.0001", "+1 555 400 0001", "15554000001"])(
    "show finds the number typed as %s, with the text shown",
    async (typed) => {
      const { stdout } = await consent("show", typed);
      expect(stdout).toContain(`${phone}: 1 consent record, 0 revocations`);
      expect(stdout).toContain("2026-01-15T10:00:00.000Z");
      expect(stdout).toContain("203.0.113.40");
      expect(stdout).toContain("the page's JavaScript");
      expect(stdout).toContain(text.text);
      expect(stdout).toContain("Consent in force: yes");
    },
  );

  it("export writes CSV a parser reads back, one row per record, --since leaving older ones out", async () => {
    const { stdout } = await consent("export");
    const rows = parse(stdout, { columns: true, relax_quotes: false, relax_column_count: false }) as Record<
      string,
      string
    >[];
    expect(rows.map((row) => [row.record, row.phone, row.at])).toStrictEqual([
      ["consent", phone, "2026-01-15T10:00:00.000Z"],
      ["consent", "+15554000002", "2026-03-01T10:00:00.000Z"],
    ]);
    expect(rows[0]).toMatchObject({
      ip: "203.0.113.40",
      user_agent: "Mozilla/5.0 (X11; Linux), like Gecko",
      javascript: "on",
      lead_id: leadId,
      disclosure_text: text.text,
    });

    const later = parse((await consent("export", "--since", "2026-02-01")).stdout, { columns: true }) as Record<
      string,
      string
    >[];
    expect(later.map((row) => row.phone)).toStrictEqual(["+15554000002"]);
    // Each export in the activity log, by the machine's user who ran it, with its row count; no number.
    const lines = await activityPage(await database(readEnv()), { limit: 2 });
    expect(lines.map(({ actor, action, subject, rows }) => ({ actor, action, subject, rows }))).toStrictEqual([
      { actor: userInfo().username, action: "export", subject: "consent records", rows: 1 },
      { actor: userInfo().username, action: "export", subject: "consent records", rows: 2 },
    ]);
  });

  it("revoke records the end of consent, stops the number's lead, and shows in the history and the export", async () => {
    const { stdout } = await consent("revoke", "(555) 400-0001", "--channel", "email", "--as", "Founder@Sous.Example");
    expect(stdout).toContain(`consent of ${phone} ended`);
    expect(stdout).toContain("1 undelivered lead will not be sent");
    // In the activity log as the operator --as names, with its channel; no number.
    const [line] = await activityPage(await database(readEnv()), { limit: 1 });
    expect(line).toMatchObject({
      actor: "founder@sous.example",
      via: "command",
      action: "revocation recorded",
      subject: "email",
      rows: 1,
    });
    // The entry's id and time are random digits and can hold "555" (CI once drew act_…_51c3e555-…): the number's own digits, then.
    expect(JSON.stringify({ ...line, id: undefined, at: undefined })).not.toMatch(/555|4000001/);
    expect(JSON.stringify(line)).not.toMatch(/5554000001|400-0001/);
    expect(await leadById(await database(readEnv()), leadId)).toMatchObject({ state: "revoked" });

    const shown = (await consent("show", phone)).stdout;
    expect(shown).toContain("channel     email, recorded by the operator");
    expect(shown).toContain("Consent in force: no");
    const rows = parse((await consent("export")).stdout, { columns: true }) as Record<string, string>[];
    expect(rows.at(-1)).toMatchObject({ record: "revocation", phone, channel: "email", source: "operator" });

    // A web sign-up after the STOP is kept as evidence and puts nothing in force; the phone's START does.
    const store = await database(readEnv());
    const later = Date.now() + 1_000;
    await recordConsent(store, {
      evidence: plainEvidence(phone, text),
      leadId: newWebhookId(),
      at: later,
      putsInForce: false,
    });
    await renewConsent(store, { phone, at: later + 1_000, messageId: "SM-start-export" });
    const after = parse((await consent("export")).stdout, { columns: true }) as Record<string, string>[];
    expect(after.slice(-2)).toMatchObject([
      { record: "consent", phone, puts_in_force: "no", javascript: "off" },
      { record: "renewal", phone, channel: "sms", message_id: "SM-start-export" },
    ]);
  });

  it("refuses what it cannot read, and says how to call it", async () => {
    await expect(consent("show", "12")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("needs a phone number"),
    });
    await expect(consent("revoke", phone, "--channel", "fax")).rejects.toMatchObject({
      stderr: expect.stringContaining("--channel is one of sms, email, other"),
    });
    await expect(consent("export", "--since", "yesterday")).rejects.toMatchObject({
      stderr: expect.stringContaining("YYYY-MM-DD"),
    });
    expect((await consent("--help")).stdout).toContain("npm run consent -- show PHONE");
    expect((await consent()).stdout).toContain("npm run consent -- export");
    await expect(consent("forget", phone)).rejects.toMatchObject({
      stderr: expect.stringContaining("unknown command forget"),
    });
  });

  it("counts in the singular and the plural, and says unknown for what the browser did not send", async () => {
    const store = await database(readEnv());
    const evidence = {
      phone: "+15554000003",
      ip: null,
      userAgent: null,
      pageUrl: null,
      javascript: false,
      disclosure: text,
      shownVersion: null,
    };
    await recordConsent(store, { evidence, leadId: leadId, at: Date.parse("2026-04-01T10:00:00Z") });
    await recordConsent(store, { evidence, leadId: leadId, at: Date.parse("2026-04-02T10:00:00Z") });
    const { stdout } = await consent("show", "+15554000003");
    expect(stdout).toContain("+15554000003: 2 consent records, 0 revocations");
    expect(stdout).toContain(
      "  ip          unknown\n  browser     unknown\n  page        unknown\n  sent by     the browser's own form post (JavaScript off)",
    );
    expect(stdout).toContain(`  lead        ${leadId}`);
    await consent("revoke", "+15554000003");
    await consent("revoke", "+15554000003", "--channel", "sms");
    const after = (await consent("show", "+15554000003")).stdout;
    expect(after).toContain("2 consent records, 2 revocations");
    expect(after).toMatch(
      /\nrevocation rev_[\w-]+  \d{4}-\d\d-\d\dT[\d:.]+Z\n  channel     other, recorded by the operator\n/,
    );
    expect(after).toContain("Consent in force: no");
    expect((await consent("show", "+15554000099")).stdout).toContain(
      "+15554000099: 0 consent records, 0 revocations\n\nConsent in force: no",
    );
    expect((await consent("revoke", "+15554000099")).stdout).toContain("0 undelivered leads will not be sent");
  });

  it("refuses a --since that is not a real day", async () => {
    for (const since of ["2026-13-45", "2026-1-5", "x2026-01-05", "2026-01-05x"]) {
      await expect(consent("export", "--since", since), since).rejects.toMatchObject({
        stderr: expect.stringContaining("YYYY-MM-DD"),
      });
    }
  });

  it("prints a number's history as JSON for scripts", async () => {
    const { stdout } = await consent("show", "5554000002", "--json");
    expect(JSON.parse(stdout)).toMatchObject({
      phone: "+15554000002",
      records: [{ record: "consent", javascript: "off", ip: "203.0.113.40" }],
    });
  });
});

it("npm run consent runs the command and exits 1 with its message when a call is wrong", async () => {
  const run = promisify(execFile);
  const { stdout } = await run("npm", ["run", "--silent", "consent", "--", "--help"], { timeout: 60_000 });
  expect(stdout).toContain("npm run consent -- revoke PHONE");
  await expect(run("npm", ["run", "--silent", "consent", "--", "show"], { timeout: 60_000 })).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining("show needs a phone number"),
  });
}, 60_000);

describe("npm run consent -- export, as an attacker would fill it", () => {
  const attacker = {
    phone: "+15554000099",
    // A carriage return and a tab start a formula too (the spreadsheet skips them): each is written after a '.
    userAgent: "\r@SUM(1+1)*cmd|' /C calc'!A0",
    ip: "\t=1+1",
    pageUrl: '=HYPERLINK("http://evil.test/x","Open")',
  };

  beforeAll(async () => {
    const store = await database(readEnv());
    const id = newWebhookId();
    const payload = { phone: attacker.phone, name: "-2+3+cmd|' /C calc'!A0" };
    await inTransaction(store, async (db) => {
      await insertLead(
        db,
        {
          id,
          receiver: "waitlist",
          dedupe_key: leadKey("waitlist", payload),
          payload: JSON.stringify(payload),
          state: "pending",
          attempts: 0,
          rounds: 0,
          created_at: Date.now(),
          next_attempt_at: Date.now() + 60_000,
          last_failure: null,
          delivered_at: null,
        },
        newClaim(0),
      );
      await recordConsent(db, {
        evidence: {
          phone: attacker.phone,
          ip: attacker.ip,
          userAgent: attacker.userAgent,
          pageUrl: attacker.pageUrl,
          javascript: true,
          disclosure: text,
          shownVersion: null,
        },
        leadId: id,
        at: Date.parse("2027-01-01T10:00:00Z"),
      });
    });
  });

  it("CSV: no cell starts with a formula character, the phone keeps its +; JSONL keeps every value as recorded", async () => {
    const csv = (await consent("export", "--since", "2026-12-31")).stdout;
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      phone: attacker.phone,
      user_agent: `'${attacker.userAgent}`,
      page_url: `'${attacker.pageUrl}`,
      ip: `'${attacker.ip}`,
    });
    for (const cell of Object.values(rows[0]!).filter((value) => value !== attacker.phone))
      expect(cell).not.toMatch(/^[=+\-@\t\r]/);

    const jsonl = (await consent("export", "--since", "2026-12-31", "--format", "jsonl")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(jsonl).toHaveLength(1);
    expect(jsonl[0]).toMatchObject({
      record: "consent",
      phone: attacker.phone,
      user_agent: attacker.userAgent,
      page_url: attacker.pageUrl,
      at: "2027-01-01T10:00:00.000Z",
    });
    await expect(consent("export", "--format", "xlsx")).rejects.toMatchObject({
      stderr: expect.stringContaining("--format is csv or jsonl"),
    });
  });
});

describe("npm run consent, on a record whose browser sent C1 and bidi characters", () => {
  // CSI (a C1 code a terminal may act on), a right-to-left override, a zero-width space.
  const userAgent = "Mozilla/5.0 \u009b31mred\u009b0m \u202etxt.exe\u202c zero\u200bwidth";
  const phone = "+15554000077";

  beforeAll(async () => {
    const store = await database(readEnv());
    await inTransaction(store, async (db) => {
      await recordConsent(db, {
        evidence: {
          phone,
          ip: "203.0.113.42",
          userAgent,
          pageUrl: null,
          javascript: false,
          disclosure: text,
          shownVersion: null,
        },
        leadId: newWebhookId(),
        at: Date.parse("2027-02-01T10:00:00Z"),
      });
    });
  });

  it("show prints each as a visible escape; the text around it, and a plain user agent, as they are", async () => {
    const { stdout } = await consent("show", phone);
    expect(stdout).toContain(
      "  browser     Mozilla/5.0 \\u{009b}31mred\\u{009b}0m \\u{202e}txt.exe\\u{202c} zero\\u{200b}width\n",
    );
    expect(stdout).not.toMatch(/[\p{Cc}\p{Cf}](?<!\n)/u);
    // Its working twin: the record of the file's first number prints its browser unchanged.
    expect((await consent("show", "+15554000001")).stdout).not.toContain("\\u{");
  });

  it("the CSV export escapes them; JSONL and --json escape them as JSON, which parses back to what was recorded", async () => {
    const csv = (await consent("export", "--since", "2027-02-01")).stdout;
    expect(csv).toContain("\\u{202e}txt.exe\\u{202c}");
    expect(csv).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u200b]/);

    const jsonl = (await consent("export", "--since", "2027-02-01", "--format", "jsonl")).stdout;
    expect(jsonl).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u200b]/);
    expect(JSON.parse(jsonl.trim())).toMatchObject({ phone, user_agent: userAgent });

    const json = (await consent("show", phone, "--json")).stdout;
    expect(json).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u200b]/);
    expect(JSON.parse(json)).toMatchObject({ records: [expect.objectContaining({ user_agent: userAgent })] });
  });
});
