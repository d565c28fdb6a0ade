import { describe, expect, it, vi } from "vitest";
import { readEnv } from "@/server/env";
import { markFailing } from "@/server/outbox/alert-store";
import { insertLead } from "@/server/outbox/outbox-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { ownerSettings, unreached } from "./unreached";

const engines = setupBothEngines();
const configured = {
  WAITLIST_WEBHOOK_URL: "https://n8n.example/webhook/waitlist",
  CONTACT_WEBHOOK_URL: "https://n8n.example/webhook/contact",
  INVITE_WEBHOOK_URL: "https://n8n.example/webhook/invite",
  INVITE_URL: "https://app.example/join",
  SITE_URL: "https://sous.example",
  ALERT_WEBHOOK_URL: "https://chat.example/hook",
};
const stub = (env: Record<string, string>) => {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
};

describe.each(["sqlite", "postgres"] as const)("what keeps chefs from being reached, on %s", (engine) => {
  it("says nothing while every workflow is connected and working, invitations configured and alerts on", async () => {
    stub(configured);
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    await store.db.deleteFrom("receivers").execute();
    await insertLead(store, waitlistLead("+14155550101", { state: "pending" }));
    expect(await unreached(store, readEnv())).toStrictEqual([]);
  });

  it("says first that texts are not sent and how many wait, then the rest, in words", async () => {
    stub({
      WAITLIST_WEBHOOK_URL: "",
      CONTACT_WEBHOOK_URL: "",
      INVITE_WEBHOOK_URL: "",
      INVITE_URL: "",
      ALERT_WEBHOOK_URL: "",
    });
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    await store.db.deleteFrom("receivers").execute();
    for (const state of ["held", "pending", "dead", "awaiting_release", "delivered"] as const)
      await insertLead(store, waitlistLead("+14155550101", { state }));
    await insertLead(store, waitlistLead("+14155550102", { receiver: "contact", state: "held" }));
    expect(await unreached(store, readEnv())).toStrictEqual([
      {
        text: "Welcome texts are not being sent: no workflow is connected for them, and 4 sign-ups wait.",
        settings: "waitlist",
      },
      {
        text: "Quote requests are not being sent: no workflow is connected for them, and 1 quote request waits.",
        settings: "contact",
      },
      { text: "Invitations are not configured: no wave can be sent yet.", settings: "invitations" },
      { text: "Alerts are off: nobody is told when deliveries fail.", settings: "alerts" },
    ]);
    for (const unset of ["INVITE_URL", "SITE_URL"]) {
      stub({ ...configured, [unset]: "" });
      expect(await unreached(store, readEnv()), unset).toStrictEqual([
        { text: "Invitations are not configured: no wave can be sent yet.", settings: "invitations" },
      ]);
    }
    // On Vercel its production domain is the site's address.
    stub({ ...configured, SITE_URL: "", VERCEL_PROJECT_PRODUCTION_URL: "sous.example" });
    expect(await unreached(store, readEnv())).toStrictEqual([]);
  });

  it("names a workflow failing while something of it waits, and since when", async () => {
    stub(configured);
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    await store.db.deleteFrom("receivers").execute();
    const since = Date.parse("2026-12-07T09:30:00Z");
    await markFailing(store, "waitlist", since, "status 503");
    await markFailing(store, "contact", since, "status 503");
    await insertLead(store, waitlistLead("+14155550101", { state: "pending" }));
    await insertLead(store, waitlistLead("+14155550103", { state: "dead" }));
    expect(await unreached(store, readEnv())).toStrictEqual([
      { text: "The waitlist workflow is failing since 2026-12-07 09:30 UTC: 2 to send again." },
    ]);
  });
});

describe("the settings an owner sets", () => {
  const setOrNot = () =>
    Object.fromEntries(
      ownerSettings(readEnv()).flatMap(({ id, settings }) => settings.map(({ name, set }) => [`${id} ${name}`, set])),
    );

  it("names each warning's settings under its section, with whether each is set and never its value", () => {
    stub({ ...configured, WAITLIST_WEBHOOK_SECRET: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTE=" });
    stub({ CONTACT_WEBHOOK_SECRET: "", CONTACT_WEBHOOK_AUTH_HEADER: "X-Sous-Key: 4f9c4f9c" });
    stub({ INVITE_WEBHOOK_SECRET: "", INVITE_WEBHOOK_AUTH_HEADER: "" });
    expect(setOrNot()).toStrictEqual({
      "waitlist WAITLIST_WEBHOOK_URL": true,
      "waitlist WAITLIST_WEBHOOK_SECRET": true,
      "contact CONTACT_WEBHOOK_URL": true,
      "contact CONTACT_WEBHOOK_SECRET": true,
      "invitations INVITE_WEBHOOK_URL": true,
      "invitations INVITE_WEBHOOK_SECRET": false,
      "invitations INVITE_URL": true,
      "invitations SITE_URL": true,
      "alerts ALERT_WEBHOOK_URL": true,
    });
    expect(JSON.stringify(ownerSettings(readEnv()))).not.toMatch(/n8n\.example|whsec_|4f9c/);
    // Each section titled in the founder's words, each setting said in a sentence of its own.
    const sections = ownerSettings(readEnv());
    expect(sections.map(({ id, title }) => `${id}: ${title}`)).toStrictEqual([
      "waitlist: Welcome texts",
      "contact: Quote requests",
      "invitations: Launch invitations",
      "alerts: Alerts",
    ]);
    const whats = sections.flatMap(({ settings }) => settings.map(({ what }) => what));
    for (const what of whats) expect(what).toMatch(/^[A-Z][^]{20,}\.$/);
    expect(new Set(whats).size).toBe(whats.length);
    expect(whats[0]).toBe("The waitlist workflow's webhook address, from n8n, Zapier or Make.");
    expect(whats[1]).toBe(
      "Signs each delivery for the workflow to check (or a fixed header: WAITLIST_WEBHOOK_AUTH_HEADER).",
    );
  });

  it("says unset what is unset", () => {
    stub({ WAITLIST_WEBHOOK_URL: "", WAITLIST_WEBHOOK_SECRET: "", WAITLIST_WEBHOOK_AUTH_HEADER: "" });
    stub({ INVITE_URL: "", SITE_URL: "", VERCEL_PROJECT_PRODUCTION_URL: "", ALERT_WEBHOOK_URL: "" });
    expect(setOrNot()).toMatchObject({
      "waitlist WAITLIST_WEBHOOK_URL": false,
      "waitlist WAITLIST_WEBHOOK_SECRET": false,
      "invitations INVITE_URL": false,
      "invitations SITE_URL": false,
      "alerts ALERT_WEBHOOK_URL": false,
    });
  });
});
