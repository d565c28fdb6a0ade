import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { waitlist } from "@/lib/forms/waitlist";
import { analyticsEnabled, EnvError, problemsOf, readCeiling, readEnv, readWebhook, siteUrl, waitlistPhonePolicy } from "./env";
import { envOf } from "@/tests/support/check-schema";

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString("base64")}`;

describe("readEnv", () => {
  it("takes a blank variable as unset, so its default applies", () => {
    const env = readEnv(envOf({ DATA_DIR: "  ", WEBHOOK_DEADLINE_MS: "", WAITLIST_PHONE_COUNTRIES: " " }));
    expect(env.DATA_DIR).toBe("data");
    expect(env.WEBHOOK_DEADLINE_MS).toBe(9_000);
    expect(env.WAITLIST_PHONE_COUNTRIES).toStrictEqual(["US", "CA"]);
  });

  it("reads DATA_DIR, or OUTBOX_DIR (its name before the database) when it is unset", () => {
    expect(readEnv(envOf({ DATA_DIR: "/srv/sous", OUTBOX_DIR: "/old" })).DATA_DIR).toBe("/srv/sous");
    expect(readEnv(envOf({ DATA_DIR: "", OUTBOX_DIR: "/old" })).DATA_DIR).toBe("/old");
  });

  it("takes only a Postgres URL as DATABASE_URL", () => {
    expect(readEnv(envOf({ DATABASE_URL: "postgresql://sous:pw@db.example.com:5432/sous" })).DATABASE_URL).toBe("postgresql://sous:pw@db.example.com:5432/sous");
    expect(problemsOf(() => readEnv(envOf({ DATABASE_URL: "mysql://db.example.com/sous" })))).toStrictEqual([
      "DATABASE_URL must be a postgres:// or postgresql:// URL",
    ]);
  });

  it("takes LEGAL_EFFECTIVE_DATE only as a real calendar day", () => {
    expect(readEnv(envOf({ LEGAL_EFFECTIVE_DATE: "2026-11-01" })).LEGAL_EFFECTIVE_DATE).toBe("2026-11-01");
    expect(readEnv(envOf({ LEGAL_EFFECTIVE_DATE: "2028-02-29" })).LEGAL_EFFECTIVE_DATE).toBe("2028-02-29");
    for (const day of ["2026-02-30", "2027-02-29", "2026-13-01", "2026-00-10", "2026-04-31"]) {
      expect(problemsOf(() => readEnv(envOf({ LEGAL_EFFECTIVE_DATE: day }))), day).toStrictEqual(["LEGAL_EFFECTIVE_DATE must be a real date"]);
    }
    expect(problemsOf(() => readEnv(envOf({ LEGAL_EFFECTIVE_DATE: "1 Nov 2026" })))).toContain("LEGAL_EFFECTIVE_DATE must be a date, YYYY-MM-DD");
  });

  it("reads a list of countries with spaces and empty entries, upper-cased", () => {
    expect(readEnv(envOf({ WAITLIST_PHONE_COUNTRIES: " us, ca ,,gb, " })).WAITLIST_PHONE_COUNTRIES).toStrictEqual(["US", "CA", "GB"]);
    expect(problemsOf(() => readEnv(envOf({ WAITLIST_PHONE_COUNTRIES: ",," })))).toHaveLength(1);
  });

  it("names every bad variable in one error", () => {
    let thrown: unknown;
    try {
      readEnv(envOf({ WEBHOOK_DEADLINE_MS: "soon", REDIS_URL: "http://cache:6379" }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EnvError);
    const error = thrown as EnvError;
    expect(error.name).toBe("EnvError");
    expect(error.problems.map((problem) => problem.split(" ")[0])).toStrictEqual(["WEBHOOK_DEADLINE_MS", "REDIS_URL"]);
    expect(error.message).toBe(`Invalid server environment: ${error.problems.join("; ")}`);
  });
});

describe("readWebhook", () => {
  it("reads a form's three variables by its name", () => {
    const secret = secretOf(32);
    const webhook = readWebhook("waitlist", envOf({
      WAITLIST_WEBHOOK_URL: "https://hooks.example/w",
      WAITLIST_WEBHOOK_SECRET: secret,
      WAITLIST_WEBHOOK_AUTH_HEADER: "X-Api-Key:   k3y value  ",
    }));
    expect(webhook).toStrictEqual({
      url: "https://hooks.example/w",
      secrets: [secret],
      auth: { name: "X-Api-Key", value: "k3y value" },
      urlVariable: "WAITLIST_WEBHOOK_URL",
    });
  });

  it("takes several secrets separated by any run of spaces: the rotation path", () => {
    const [oldSecret, newSecret] = [secretOf(24), secretOf(64)];
    expect(readWebhook("contact", envOf({ CONTACT_WEBHOOK_SECRET: ` ${oldSecret}  \t${newSecret} ` })).secrets).toStrictEqual([
      oldSecret,
      newSecret,
    ]);
  });

  it("refuses a secret of fewer than 24 or more than 64 random bytes", () => {
    for (const bytes of [24, 64]) expect(problemsOf(() => readWebhook("contact", envOf({ CONTACT_WEBHOOK_SECRET: secretOf(bytes) })))).toStrictEqual([]);
    for (const bytes of [23, 65]) {
      expect(problemsOf(() => readWebhook("contact", envOf({ CONTACT_WEBHOOK_SECRET: secretOf(bytes) })))).toStrictEqual([
        "CONTACT_WEBHOOK_SECRET must hold 24 to 64 random bytes",
      ]);
    }
  });

  it("refuses a URL with only a user name, or only a password", () => {
    for (const url of ["https://user@hooks.example/w", "https://:pass@hooks.example/w"]) {
      expect(problemsOf(() => readWebhook("contact", envOf({ CONTACT_WEBHOOK_URL: url })))[0]).toMatch(/^CONTACT_WEBHOOK_URL must not hold/);
    }
  });
});

describe("readCeiling", () => {
  const { ceiling } = waitlist.limits;
  if (!ceiling) throw new Error("the waitlist's definition names its ceiling");

  it("reads the variables a form's definition names, each its fallback when unset or blank", () => {
    expect(readCeiling(ceiling, envOf({}))).toStrictEqual({ perMinute: 30, perDay: 500 });
    expect(readCeiling(ceiling, envOf({ RATE_LIMIT_WAITLIST_PER_MINUTE: "4", WAITLIST_DAILY_LIMIT: " " }))).toStrictEqual({ perMinute: 4, perDay: 500 });
    expect(readCeiling(ceiling, envOf({ WAITLIST_DAILY_LIMIT: "7" }))).toStrictEqual({ perMinute: 30, perDay: 7 });
  });

  it("names each bad variable", () => {
    expect(problemsOf(() => readCeiling(ceiling, envOf({ RATE_LIMIT_WAITLIST_PER_MINUTE: "0", WAITLIST_DAILY_LIMIT: "many" })))).toStrictEqual([
      "RATE_LIMIT_WAITLIST_PER_MINUTE Too small: expected number to be >=1",
      "WAITLIST_DAILY_LIMIT Invalid input: expected number, received NaN",
    ]);
  });
});

describe("siteUrl", () => {
  it("is SITE_URL, else Vercel's production domain over https, else the local server", () => {
    expect(siteUrl(envOf({ SITE_URL: "https://sous.example", VERCEL_PROJECT_PRODUCTION_URL: "sous.vercel.app" })).href).toBe(
      "https://sous.example/",
    );
    expect(siteUrl(envOf({ VERCEL_PROJECT_PRODUCTION_URL: "sous.vercel.app" })).href).toBe("https://sous.vercel.app/");
    expect(siteUrl(envOf({})).href).toBe("http://localhost:3000/");
  });
});

describe("analyticsEnabled", () => {
  it("is on on Vercel, or where the operator turns it on, and off elsewhere", () => {
    expect(analyticsEnabled(envOf({ VERCEL: "1" }))).toBe(true);
    expect(analyticsEnabled(envOf({ ENABLE_VERCEL_ANALYTICS: "true" }))).toBe(true);
    expect(analyticsEnabled(envOf({}))).toBe(false);
    expect(analyticsEnabled(envOf({ VERCEL: "0", ENABLE_VERCEL_ANALYTICS: "false" }))).toBe(false);
  });
});

describe("waitlistPhonePolicy", () => {
  it("hands the browser the default country and the accepted ones", () => {
    expect(waitlistPhonePolicy(envOf({}))).toStrictEqual({ defaultCountry: "US", countries: ["US", "CA"] });
    expect(waitlistPhonePolicy(envOf({ PHONE_DEFAULT_COUNTRY: "ca", WAITLIST_PHONE_COUNTRIES: "CA" }))).toStrictEqual({
      defaultCountry: "CA",
      countries: ["CA"],
    });
  });
});
