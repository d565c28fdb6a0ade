import { describe, expect, it } from "vitest";
import { EnvError } from "@/server/env";
import { readInviteSettings } from "./invite-settings";

// A server's environment holding only these variables.
import { withEnv } from "@/tests/support/check-schema";

const problemsOf = (values: Record<string, string>) => {
  try {
    withEnv(values, () => readInviteSettings());
    return [];
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
};

describe("the invitations' settings", () => {
  it("default to 60 a minute between 9:00 and 20:00, with no webhook and no link", () => {
    const settings = withEnv({}, () => readInviteSettings());
    // Blank is unset, as in the other settings: empty, or spaces only (a value pasted between quotes).
    for (const blank of ["", "   "])
      expect(withEnv({ INVITE_HOURS: " ", INVITE_URL: blank }, () => readInviteSettings())).toMatchObject({
        link: undefined,
        hours: { from: 9, to: 20 },
      });
    expect(settings).toMatchObject({ link: undefined, perMinute: 60, hours: { from: 9, to: 20 } });
    expect(settings.webhook).toMatchObject({ url: undefined, urlVariable: "INVITE_WEBHOOK_URL" });
    expect(
      withEnv({ INVITE_HOURS: " 8-21 ", INVITE_PER_MINUTE: "6000", INVITE_URL: "https://sous.example/start" }, () =>
        readInviteSettings(),
      ),
    ).toMatchObject({
      link: "https://sous.example/start",
      perMinute: 6000,
      hours: { from: 8, to: 21 },
    });
    // Two digits for each hour, and spaces around the dash.
    for (const [written, hours] of [
      ["10-20", { from: 10, to: 20 }],
      ["9 - 20", { from: 9, to: 20 }],
    ] as const)
      expect(withEnv({ INVITE_HOURS: written }, () => readInviteSettings()).hours, written).toStrictEqual(hours);
  });

  it("refuse hours outside 8-21 or backwards, a pace of 0, and a link that is not https or would not fit one segment", () => {
    for (const hours of ["7-20", "9-22", "20-9", "9-9", "nine to five", "9", "9-20 pm", "from 9-20", "9x-20"])
      expect(problemsOf({ INVITE_HOURS: hours })).toStrictEqual([
        expect.stringMatching(/^INVITE_HOURS must be two local hours FROM-TO within 8-21/),
      ]);
    expect(problemsOf({ INVITE_PER_MINUTE: "0" })).toStrictEqual([expect.stringMatching(/^INVITE_PER_MINUTE/)]);
    expect(problemsOf({ INVITE_URL: "http://sous.example/start" })).toStrictEqual([
      "INVITE_URL must be an https:// URL",
    ]);
    expect(problemsOf({ INVITE_URL: `https://sous.example/${"s".repeat(40)}` })).toStrictEqual([
      "INVITE_URL must be 57 characters or fewer, so the invitation stays one SMS segment",
    ]);
    // At the bound: 57 characters are taken, 58 are not.
    const atBound = `https://sous.example/${"s".repeat(57 - "https://sous.example/".length)}`;
    expect(withEnv({ INVITE_URL: atBound }, () => readInviteSettings()).link).toHaveLength(57);
    expect(problemsOf({ INVITE_URL: `${atBound}s` })).toStrictEqual([
      "INVITE_URL must be 57 characters or fewer, so the invitation stays one SMS segment",
    ]);
    expect(problemsOf({ INVITE_URL: "https://sous.example/~start" })).toStrictEqual([
      expect.stringMatching(/^INVITE_URL must hold only GSM-7 characters/),
    ]);
    expect(problemsOf({ INVITE_WEBHOOK_URL: "https://user:pass@n8n.example/webhook/sous-invitation" })).toStrictEqual([
      expect.stringMatching(/^INVITE_WEBHOOK_URL must not hold a user name or password/),
    ]);
  });
});
