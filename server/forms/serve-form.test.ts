import { describe, expect, it, vi } from "vitest";
import { contact } from "@/lib/forms/contact";
import { consentTextOf } from "@/lib/forms/define";
import { idleState } from "@/lib/forms/form-state";
import { emptyWaitlistValues, waitlist, waitlistMessages } from "@/lib/forms/waitlist";
import { disclosureOf } from "@/server/consent/disclosure";
import { formData } from "@/tests/support/form-data";
import { serveForm } from "./serve-form";

describe("serveForm", () => {
  it("serves a form that texts its action and its consent fields: the countries it takes and the consent text's version", async () => {
    vi.stubEnv("WAITLIST_PHONE_COUNTRIES", "US,GB");
    vi.stubEnv("PHONE_DEFAULT_COUNTRY", "US");
    vi.spyOn(console, "info").mockImplementation(() => {});
    const served = serveForm(waitlist);
    expect(served.consent).toStrictEqual({
      phonePolicy: { defaultCountry: "US", countries: ["US", "GB"] },
      disclosureVersion: disclosureOf(consentTextOf(waitlist)).version,
    });
    // The action is the waitlist's: an empty post is answered with the waitlist's own messages.
    const state = await served.action(idleState(emptyWaitlistValues), formData({}, { script: true }));
    expect(state).toMatchObject({ status: "invalid", errors: { name: waitlistMessages.invalid.name } });
  });

  it("serves a form that does not text its action alone", () => {
    const served = serveForm(contact);
    expect(Object.keys(served)).toStrictEqual(["action"]);
    expect(typeof served.action).toBe("function");
  });
});
