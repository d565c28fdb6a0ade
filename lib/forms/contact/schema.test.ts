import { describe, expect, it } from "vitest";
import { check } from "@/tests/support/check-schema";
import { contactSchema } from "./schema";
import { contactMessages, emptyContactValues } from "./words";

const m = contactMessages.invalid;
// Built per call, as a test runs: what a schema is built with is what the test checks.
const request = (fields: Partial<typeof emptyContactValues>) =>
  check(contactSchema(), {
    ...emptyContactValues,
    name: "Ada",
    email: "ada@example.com",
    clientCount: "6-15",
    ...fields,
  });

describe("contactSchema", () => {
  it("keeps a valid request, trimmed, with the phone as typed", () => {
    expect(request({ name: " Ada ", phone: " (555) 123-4567 ", message: "Line one\r\nline two " })).toStrictEqual({
      ok: true,
      value: {
        name: "Ada",
        email: "ada@example.com",
        phone: "(555) 123-4567",
        clientCount: "6-15",
        currentTools: "",
        message: "Line one\nline two",
      },
    });
  });

  it("answers a missing name, a bad email and an unknown client count with the form's messages", () => {
    expect(request({ name: "  ", email: "ada@", clientCount: "100+" })).toStrictEqual({
      ok: false,
      errors: { name: m.name, email: m.email, clientCount: m.clientCount },
    });
  });

  it("accepts the addresses the browser's type=email accepts", () => {
    expect(request({ email: "chef+quotes@kitchen.example" }).ok).toBe(true);
    expect(request({ email: "chef@localhost" }).ok).toBe(true);
    expect(request({ email: "chef at kitchen.example" })).toStrictEqual({ ok: false, errors: { email: m.email } });
  });

  it("caps every text field at its length", () => {
    expect(request({ currentTools: "a".repeat(301) })).toStrictEqual({
      ok: false,
      errors: { currentTools: "Please use at most 300 characters." },
    });
    expect(request({ message: "a".repeat(3001) })).toStrictEqual({
      ok: false,
      errors: { message: "Please use at most 3,000 characters." },
    });
  });
});
