import { describe, expect, it } from "vitest";
import { contact } from "./contact";
import { consentTextOf, defineForm, pageOf, registryOf } from "./define";
import { forms } from "./index";
import { waitlist } from "./waitlist";

describe("registryOf", () => {
  it("gives the names, the pages without their anchors, and the forms that keep consent", () => {
    const registry = registryOf({ contact, waitlist });
    expect(registry.forms).toStrictEqual({ contact, waitlist });
    expect(registry.formNames).toStrictEqual(["contact", "waitlist"]);
    expect(registry.formPages).toStrictEqual(["/", "/signup"]);
    expect(registry.consentForms).toStrictEqual([{ form: "waitlist", phoneKey: "phone" }]);
    // Where a post without JavaScript lands: each form's result page, and the START page of a form that keeps consent.
    expect(registry.resultPages).toStrictEqual(["/sent/contact", "/sent/waitlist"]);
  });

  it("knows only the names of its own forms", () => {
    const { isFormName } = registryOf({ contact, waitlist });
    expect(["contact", "waitlist"].filter(isFormName)).toStrictEqual(["contact", "waitlist"]);
    for (const name of ["catering", "Contact", "toString", "__proto__", "constructor", ""])
      expect(isFormName(name), name).toBe(false);
  });

  it("names each page once, however many forms it holds", () => {
    const second = defineForm({ ...contact, name: "second", permalink: "/#second" });
    expect(registryOf({ contact, second }).formPages).toStrictEqual(["/"]);
  });

  it("refuses a form filed under a name other than its own", () => {
    expect(() => registryOf({ contact, signup: waitlist })).toThrow('The form "waitlist" is filed as "signup"');
  });

  it("is what the site files its forms with", () => {
    expect(Object.keys(forms)).toStrictEqual(["contact", "waitlist"]);
  });
});

describe("pageOf", () => {
  it("is the path of a form's permalink, without its anchor", () => {
    expect(pageOf({ permalink: "/#contact" })).toBe("/");
    expect(pageOf({ permalink: "/signup" })).toBe("/signup");
    expect(pageOf({ permalink: "/quote#form" })).toBe("/quote");
    expect(pageOf({ permalink: "#top" })).toBe("/");
  });
});

describe("consentTextOf", () => {
  it("is the label of the form's consent checkbox", () => {
    expect(consentTextOf(waitlist)).toBe(waitlist.fields.consent.label);
  });

  it("refuses a form that asks for no consent", () => {
    expect(() => consentTextOf(contact)).toThrow('The form "contact" asks for no consent');
  });
});

describe("the two forms' definitions, as the spec and the server read them", () => {
  it("pin the names, pages, events, payloads, consent and limits", () => {
    const pinned = (form: typeof contact | typeof waitlist) => {
      const { name, permalink, event, payload, consent, limits } = form as typeof form & {
        payload?: unknown;
        consent?: unknown;
      };
      return { name, permalink, event, payload, consent, limits };
    };
    expect(pinned(contact)).toStrictEqual({
      name: "contact",
      permalink: "/#contact",
      event: "Contact Request",
      payload: undefined,
      consent: undefined,
      limits: { email: "email" },
    });
    expect(pinned(waitlist)).toStrictEqual({
      name: "waitlist",
      permalink: "/signup",
      event: "Waitlist Signup",
      payload: ["phone", "name"],
      consent: { phone: "phone", checkbox: "consent" },
      limits: {
        phone: "phone",
        ceiling: {
          perMinute: { variable: "RATE_LIMIT_WAITLIST_PER_MINUTE", fallback: 30 },
          perDay: { variable: "WAITLIST_DAILY_LIMIT", fallback: 500 },
        },
      },
    });
  });

  it("keep the honeypot a field no visitor sees and a bot fills: website", async () => {
    const { honeypotName } = await import("./honeypot");
    expect(honeypotName).toBe("website");
  });
});
