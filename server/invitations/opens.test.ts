import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { isOneSegment } from "@/lib/sms/program";
import { recordRevocation } from "@/server/consent/consent-store";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import type { Actor } from "@/server/operators/operators";
import { consentsFor, stubInvitationSettings } from "@/tests/support/invitation-settings";
import { invitationExport } from "@/server/console/exports";
import { listInvitations } from "./invitation-store";
import { cancelWaveNamed, launchWave, WaveError, waveStatus } from "./launch";
import { isPersonViewing } from "@/server/web/visits";
import { openInvitation } from "./opens";

const by = { actor: "founder@sous.example", via: "console" } as Actor;
const store = async () => database(readEnv());
// Fictional numbers of New York, in sign-up order.
const phones = Array.from({ length: 7 }, (_, i) => `+1212555030${i}`);

const agents = {
  iMessage:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
  whatsApp: "WhatsApp/2.23.20.0 A",
  telegram: "TelegramBot (like TwitterBot)",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  google:
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 (compatible; Google-PageRenderer; +https://developers.google.com/)",
  curl: "curl/8.5.0",
  headless: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0 Safari/537.36",
  iPhone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  android:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36",
};

const request = (code: string, agent: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
  new Request(`https://sous.example/i/${code}`, {
    method: init.method ?? "GET",
    headers: { "user-agent": agent, ...init.headers },
  });

// The prerendered not-found page, as a build writes it; the folder stands in for the project's.
const project = mkdtempSync(path.join(tmpdir(), "sous-opens-"));

beforeAll(async () => consentsFor(await store(), phones));
beforeEach(() => stubInvitationSettings("https://app.sous.example/join?from=sms"));

/** As the workflow's answer leaves it: texted, at `at`. */
async function texted(id: string, at: number) {
  const { db } = await store();
  await db.updateTable("outbox").set({ state: "texted", delivered_at: at }).where("id", "=", id).execute();
}

describe("an invitation's link", () => {
  it("is the site's own, a code of 72 random bits each, and the text stays one segment", async () => {
    await launchWave(await store(), { name: "links", selection: { next: 3 }, by });
    const invitations = await listInvitations(await store(), { wave: "links" });
    expect(invitations).toHaveLength(3);
    const codes = invitations.map((row) => row.code!);
    expect(new Set(codes).size).toBe(3);
    for (const { code, text } of invitations) {
      expect(code).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(text).toContain(` https://sous.example/i/${code} `);
      expect(text).not.toContain("app.sous.example");
      expect(isOneSegment(text)).toBe(true);
    }
    await cancelWaveNamed(await store(), { name: "links", by });
  });

  it("is refused when SITE_URL is too long for the text to stay one segment; nothing queued", async () => {
    // 160 characters: the text takes 103 and the link's "/i/" and code 15, which leaves 42 for the address.
    vi.stubEnv("SITE_URL", `https://${"s".repeat(42 - "https://.example".length)}.example`);
    const fits = await launchWave(await store(), { name: "fits", selection: { next: 1 }, by });
    expect(fits.queued.queued).toBe(1);
    await cancelWaveNamed(await store(), { name: "fits", by });
    const tooLong = `https://${"s".repeat(43 - "https://.example".length)}.example`;
    vi.stubEnv("SITE_URL", tooLong);
    const refused = await launchWave(await store(), { name: "too-long", selection: { next: 1 }, by }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(WaveError);
    expect(refused).toMatchObject({
      code: "long",
      message:
        `SITE_URL is too long for the invitation to stay one SMS segment: its link, ${tooLong}/i/CODE with a ` +
        "12-character code, must be 57 characters at most; nothing was queued",
    });
    expect((await waveStatus(await store(), "too-long")).response.queued).toBe(0);
  });
});

describe("opening it", () => {
  it("counts a person's browser once, never a preview, a HEAD or a prefetch, and sends them on with the code", async () => {
    await launchWave(await store(), { name: "opens", selection: { next: 4 }, by });
    const [first, second, third, fourth] = await listInvitations(await store(), { wave: "opens" });
    for (const invitation of [first!, second!, third!]) await texted(invitation.id, 50_000);
    const { db } = await store();
    await db
      .updateTable("outbox")
      .set({ state: "refused", delivered_at: 50_000 })
      .where("id", "=", fourth!.id)
      .execute();
    const code = first!.code!;
    const opened = async () => (await listInvitations(await store(), { code }))[0]!.opened_at;

    for (const agent of [agents.iMessage, agents.whatsApp, agents.telegram, agents.google]) {
      const answer = await openInvitation(request(code, agent), code);
      expect(answer.status).toBe(303);
    }
    await openInvitation(request(code, agents.iPhone, { method: "HEAD" }), code);
    await openInvitation(request(code, agents.iPhone, { headers: { "sec-purpose": "prefetch" } }), code);
    expect(await opened()).toBeNull();
    expect((await waveStatus(await store(), "opens")).response.opened).toBe(0);

    const answer = await openInvitation(
      request(code, agents.iPhone, { headers: { "sec-fetch-mode": "navigate" } }),
      code,
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`https://app.sous.example/join?from=sms&invite=${code}`);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const at = await opened();
    expect(at).toEqual(expect.any(Number));
    await openInvitation(request(code, agents.android), code);
    expect(await opened()).toBe(at);

    // The third texts STOP as its invitation is answered; the second had revoked before it; the fourth, refused by
    // its carrier, was never texted.
    const stop = async (phone: string, at: number) =>
      recordRevocation(await store(), { phone, channel: "sms", source: "workflow", at });
    await stop(second!.phone, 40_000);
    await stop(third!.phone, 50_000);
    await stop(fourth!.phone, 60_000);
    expect((await waveStatus(await store(), "opens")).response).toStrictEqual({
      queued: 4,
      texted: 3,
      opened: 1,
      stopped: 1,
      failed: 1,
    });
    const rows = (await invitationExport(await store(), { wave: "opens" })).rows;
    expect(rows.map(({ texted_at, opened_at, stopped_at }) => ({ texted_at, opened_at, stopped_at }))).toStrictEqual([
      { texted_at: new Date(50_000).toISOString(), opened_at: new Date(at!).toISOString(), stopped_at: null },
      { texted_at: new Date(50_000).toISOString(), opened_at: null, stopped_at: null },
      { texted_at: new Date(50_000).toISOString(), opened_at: null, stopped_at: new Date(50_000).toISOString() },
      { texted_at: null, opened_at: null, stopped_at: null },
    ]);
  });

  it("answers an unknown code, or a cancelled invitation's, as an unknown page, and counts nothing", async () => {
    vi.spyOn(process, "cwd").mockReturnValue(project);
    // One skipped for a STOP before its turn, and one cancelled: neither was sent.
    await launchWave(await store(), { name: "skipped", selection: { next: 1 }, by });
    const [skipped] = await listInvitations(await store(), { wave: "skipped" });
    const { db } = await store();
    await db.updateTable("outbox").set({ state: "skipped" }).where("id", "=", skipped!.id).execute();
    await launchWave(await store(), { name: "called-off", selection: { next: 1 }, by });
    const [cancelled] = await listInvitations(await store(), { wave: "called-off" });
    await cancelWaveNamed(await store(), { name: "called-off", by });
    // Before a build there is no page to send: Next renders its own.
    await expect(openInvitation(request("AAAAAAAAAAAA", agents.iPhone), "AAAAAAAAAAAA")).rejects.toMatchObject({
      digest: "NEXT_HTTP_ERROR_FALLBACK;404",
    });
    mkdirSync(path.join(project, ".next", "server", "app"), { recursive: true });
    writeFileSync(path.join(project, ".next", "server", "app", "_not-found.html"), "<main>Not found</main>");
    for (const code of ["AAAAAAAAAAAA", "short", cancelled!.code!, skipped!.code!]) {
      const answer = await openInvitation(request(code, agents.iPhone), code);
      expect(answer.status, code).toBe(404);
      expect(await answer.text()).toBe("<main>Not found</main>");
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
    expect((await listInvitations(await store(), { wave: "called-off" }))[0]!.opened_at).toBeNull();
    // Its twin: a texted one's code is sent on.
    await launchWave(await store(), { name: "kept", selection: { next: 1 }, by });
    const [kept] = await listInvitations(await store(), { wave: "kept" });
    await texted(kept!.id, 70_000);
    expect((await openInvitation(request(kept!.code!, agents.iPhone), kept!.code!)).status).toBe(303);
    expect((await listInvitations(await store(), { wave: "kept" }))[0]!.opened_at).toEqual(expect.any(Number));
  });
});

describe("a person opening", () => {
  it("is a browser's GET navigation: previews, crawlers, scripts, HEAD, prefetches and fetches are not", () => {
    expect(isPersonViewing(request("x", agents.iPhone))).toBe(true);
    expect(isPersonViewing(request("x", agents.android, { headers: { "sec-fetch-mode": "navigate" } }))).toBe(true);
    for (const agent of [agents.iMessage, agents.whatsApp, agents.telegram, agents.slack, agents.google, agents.curl])
      expect(isPersonViewing(request("x", agent)), agent).toBe(false);
    expect(isPersonViewing(request("x", agents.headless))).toBe(false);
    expect(isPersonViewing(request("x", ""))).toBe(false);
    // A script that names a browser further on.
    expect(isPersonViewing(request("x", "Dart/3.2 (dart:io) Mozilla/5.0"))).toBe(false);
    expect(isPersonViewing(request("x", agents.iPhone, { method: "HEAD" }))).toBe(false);
    for (const [name, value] of [
      ["sec-purpose", "prefetch;prerender"],
      ["purpose", "prefetch"],
      ["x-purpose", "preview"],
      ["x-moz", "prefetch"],
    ])
      expect(isPersonViewing(request("x", agents.iPhone, { headers: { [name!]: value! } })), name).toBe(false);
    expect(isPersonViewing(request("x", agents.iPhone, { headers: { "sec-fetch-mode": "cors" } }))).toBe(false);
  });
});
