import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { waitlist } from "@/lib/forms/waitlist";
import { EnvError, problemsOf, readEnv, sendsInClear } from "./env";
import { analyticsEnabled, siteUrl, waitlistPhonePolicy } from "./site-settings";
import { withEnv } from "@/tests/support/check-schema";

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString("base64")}`;

describe("readEnv", () => {
  it("takes a blank variable as unset, so its default applies", () => {
    const env = withEnv({ DATA_DIR: "  ", WEBHOOK_DEADLINE_MS: "", WAITLIST_PHONE_COUNTRIES: " " }, () => readEnv());
    expect(env.DATA_DIR).toBe("data");
    expect(env.WEBHOOK_DEADLINE_MS).toBe(9_000);
    expect(env.WAITLIST_PHONE_COUNTRIES).toStrictEqual(["US", "CA"]);
  });

  it("reads DATA_DIR, or OUTBOX_DIR (its name before the database) when it is unset", () => {
    expect(withEnv({ DATA_DIR: "/srv/sous", OUTBOX_DIR: "/old" }, () => readEnv()).DATA_DIR).toBe("/srv/sous");
    expect(withEnv({ DATA_DIR: "", OUTBOX_DIR: "/old" }, () => readEnv()).DATA_DIR).toBe("/old");
    expect(withEnv({ DATA_DIR: "  ", OUTBOX_DIR: "/old" }, () => readEnv()).DATA_DIR).toBe("/old");
  });

  it("takes only a Postgres URL as DATABASE_URL", () => {
    expect(
      withEnv({ DATABASE_URL: "postgresql://sous:pw@db.example.com:5432/sous" }, () => readEnv()).DATABASE_URL,
    ).toBe("postgresql://sous:pw@db.example.com:5432/sous");
    expect(problemsOf(() => withEnv({ DATABASE_URL: "mysql://db.example.com/sous" }, () => readEnv()))).toStrictEqual([
      "DATABASE_URL must be a postgres:// or postgresql:// URL",
    ]);
  });

  it("takes libpq's socket form, and a percent-encoded password, as DATABASE_URL", () => {
    for (const url of [
      "postgresql://sous:pw@/sous?host=/run/postgresql",
      "postgres:///sous?host=/var/run/postgresql",
      "postgresql://sous:p%40ss%20word@db.example.com/sous",
    ])
      expect(withEnv({ DATABASE_URL: url }, () => readEnv()).DATABASE_URL).toBe(url);
    // No host anywhere: not a database one can reach.
    expect(problemsOf(() => withEnv({ DATABASE_URL: "postgresql://sous:pw@/sous" }, () => readEnv()))).toStrictEqual([
      "DATABASE_URL must be a postgres:// or postgresql:// URL",
    ]);
  });

  it("believes no proxy unless told, except on Vercel, whose edge is one; and says where the value came from", () => {
    expect(withEnv({}, () => readEnv())).toMatchObject({ TRUSTED_PROXY_HOPS: 0, trustedProxyHopsFrom: "default" });
    expect(withEnv({ VERCEL: "1" }, () => readEnv())).toMatchObject({
      TRUSTED_PROXY_HOPS: 1,
      trustedProxyHopsFrom: "vercel",
    });
    expect(withEnv({ VERCEL: "1", TRUSTED_PROXY_HOPS: "0" }, () => readEnv())).toMatchObject({
      TRUSTED_PROXY_HOPS: 0,
      trustedProxyHopsFrom: "setting",
    });
    expect(withEnv({ TRUSTED_PROXY_HOPS: "2" }, () => readEnv())).toMatchObject({
      TRUSTED_PROXY_HOPS: 2,
      trustedProxyHopsFrom: "setting",
    });
  });

  it("takes LEGAL_EFFECTIVE_DATE only as a real calendar day", () => {
    expect(withEnv({ LEGAL_EFFECTIVE_DATE: "2026-11-01" }, () => readEnv()).LEGAL_EFFECTIVE_DATE).toBe("2026-11-01");
    expect(withEnv({ LEGAL_EFFECTIVE_DATE: "2028-02-29" }, () => readEnv()).LEGAL_EFFECTIVE_DATE).toBe("2028-02-29");
    for (const day of ["2026-02-30", "2027-02-29", "2026-13-01", "2026-00-10", "2026-04-31"]) {
      expect(
        problemsOf(() => withEnv({ LEGAL_EFFECTIVE_DATE: day }, () => readEnv())),
        day,
      ).toStrictEqual(["LEGAL_EFFECTIVE_DATE must be a real date"]);
    }
    expect(problemsOf(() => withEnv({ LEGAL_EFFECTIVE_DATE: "1 Nov 2026" }, () => readEnv()))).toContain(
      "LEGAL_EFFECTIVE_DATE must be a date, YYYY-MM-DD",
    );
  });

  it("reads a list of countries with spaces and empty entries, upper-cased", () => {
    expect(
      withEnv({ WAITLIST_PHONE_COUNTRIES: " us, ca ,,gb, " }, () => readEnv()).WAITLIST_PHONE_COUNTRIES,
    ).toStrictEqual(["US", "CA", "GB"]);
    expect(problemsOf(() => withEnv({ WAITLIST_PHONE_COUNTRIES: ",," }, () => readEnv()))).toHaveLength(1);
  });

  it("names every bad variable in one error", () => {
    let thrown: unknown;
    try {
      withEnv({ WEBHOOK_DEADLINE_MS: "soon", REDIS_URL: "http://cache:6379" }, () => readEnv());
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

describe("sendsInClear", () => {
  it("is true of http:// to another machine, false of https:// and of this machine", () => {
    expect(sendsInClear("http://n8n.example.com/webhook/x")).toBe(true);
    expect(sendsInClear("http://10.0.0.5:5678/webhook/x")).toBe(true);
    expect(sendsInClear("http://localhost.example.com/x")).toBe(true);
    for (const url of [
      "https://n8n.example.com/webhook/x",
      "http://127.0.0.1:5678/x",
      "http://127.8.9.10/x",
      "http://localhost:5678/x",
      "http://[::1]:5678/x",
    ])
      expect(sendsInClear(url), url).toBe(false);
  });
});

describe("readEnv().webhooks", () => {
  it("reads a form's three variables by its name", () => {
    const secret = secretOf(32);
    const webhook = withEnv(
      {
        WAITLIST_WEBHOOK_URL: "https://hooks.example/w",
        WAITLIST_WEBHOOK_SECRET: secret,
        WAITLIST_WEBHOOK_AUTH_HEADER: "X-Api-Key:   k3y value  ",
      },
      () => readEnv().webhooks.waitlist,
    );
    expect(webhook).toStrictEqual({
      url: "https://hooks.example/w",
      secrets: [secret],
      auth: { name: "X-Api-Key", value: "k3y value" },
      urlVariable: "WAITLIST_WEBHOOK_URL",
    });
  });

  it("takes several secrets separated by any run of spaces: the rotation path", () => {
    const [oldSecret, newSecret] = [secretOf(24), secretOf(64)];
    expect(
      withEnv({ CONTACT_WEBHOOK_SECRET: ` ${oldSecret}  \t${newSecret} ` }, () => readEnv().webhooks.contact).secrets,
    ).toStrictEqual([oldSecret, newSecret]);
  });

  it("refuses a secret of fewer than 24 or more than 64 random bytes", () => {
    for (const bytes of [24, 64])
      expect(
        problemsOf(() => withEnv({ CONTACT_WEBHOOK_SECRET: secretOf(bytes) }, () => readEnv().webhooks.contact)),
      ).toStrictEqual([]);
    for (const bytes of [23, 65]) {
      expect(
        problemsOf(() => withEnv({ CONTACT_WEBHOOK_SECRET: secretOf(bytes) }, () => readEnv().webhooks.contact)),
      ).toStrictEqual(["CONTACT_WEBHOOK_SECRET must hold 24 to 64 random bytes"]);
    }
  });

  it("refuses a URL with only a user name, or only a password", () => {
    for (const url of ["https://user@hooks.example/w", "https://:pass@hooks.example/w"]) {
      expect(problemsOf(() => withEnv({ CONTACT_WEBHOOK_URL: url }, () => readEnv().webhooks.contact))[0]).toMatch(
        /^CONTACT_WEBHOOK_URL must not hold/,
      );
    }
  });
});

describe("readEnv().ceilings", () => {
  const { ceiling } = waitlist.limits;
  if (!ceiling) throw new Error("the waitlist's definition names its ceiling");

  it("reads the variables a form's definition names, each its fallback when unset or blank", () => {
    expect(withEnv({}, () => readEnv().ceilings.waitlist)).toStrictEqual({ perMinute: 30, perDay: 500 });
    expect(
      withEnv({ RATE_LIMIT_WAITLIST_PER_MINUTE: "4", WAITLIST_DAILY_LIMIT: " " }, () => readEnv().ceilings.waitlist),
    ).toStrictEqual({ perMinute: 4, perDay: 500 });
    expect(withEnv({ WAITLIST_DAILY_LIMIT: "7" }, () => readEnv().ceilings.waitlist)).toStrictEqual({
      perMinute: 30,
      perDay: 7,
    });
  });

  it("names each bad variable", () => {
    expect(
      problemsOf(() =>
        withEnv(
          { RATE_LIMIT_WAITLIST_PER_MINUTE: "0", WAITLIST_DAILY_LIMIT: "many" },
          () => readEnv().ceilings.waitlist,
        ),
      ),
    ).toStrictEqual([
      "RATE_LIMIT_WAITLIST_PER_MINUTE Too small: expected number to be >=1",
      "WAITLIST_DAILY_LIMIT Invalid input: expected number, received NaN",
    ]);
  });
});

describe("siteUrl", () => {
  it("is SITE_URL, else Vercel's production domain over https, else the local server", () => {
    expect(
      withEnv({ SITE_URL: "https://sous.example", VERCEL_PROJECT_PRODUCTION_URL: "sous.vercel.app" }, () => siteUrl())
        .href,
    ).toBe("https://sous.example/");
    expect(withEnv({ VERCEL_PROJECT_PRODUCTION_URL: "sous.vercel.app" }, () => siteUrl()).href).toBe(
      "https://sous.vercel.app/",
    );
    expect(withEnv({}, () => siteUrl()).href).toBe("http://localhost:3000/");
  });
});

describe("analyticsEnabled", () => {
  it("is on on Vercel, or where the operator turns it on, and off elsewhere", () => {
    expect(withEnv({ VERCEL: "1" }, () => analyticsEnabled())).toBe(true);
    expect(withEnv({ ENABLE_VERCEL_ANALYTICS: "true" }, () => analyticsEnabled())).toBe(true);
    expect(withEnv({}, () => analyticsEnabled())).toBe(false);
    expect(withEnv({ VERCEL: "0", ENABLE_VERCEL_ANALYTICS: "false" }, () => analyticsEnabled())).toBe(false);
  });
});

describe("waitlistPhonePolicy", () => {
  it("hands the browser the default country and the accepted ones", () => {
    expect(withEnv({}, () => waitlistPhonePolicy())).toStrictEqual({ defaultCountry: "US", countries: ["US", "CA"] });
    expect(
      withEnv({ PHONE_DEFAULT_COUNTRY: "ca", WAITLIST_PHONE_COUNTRIES: "CA" }, () => waitlistPhonePolicy()),
    ).toStrictEqual({
      defaultCountry: "CA",
      countries: ["CA"],
    });
  });
});

describe("the settings' defaults and bounds, as .env.example documents them", () => {
  it("gives every setting left unset its documented default", () => {
    const env = withEnv({}, () => readEnv());
    // toEqual: an optional setting left unset is absent, which equals undefined here.
    expect(env).toEqual({
      DATA_DIR: "data",
      DATABASE_URL: undefined,
      LEAD_RETENTION_DAYS: 30,
      CONSENT_RETENTION_DAYS: 1_461,
      CONSENT_WEBHOOK_SECRET: undefined,
      BUSINESS_LEGAL_NAME: "Sous",
      STUDIO_CREDIT: "Built by Brigade Labs, a small software studio.",
      BUSINESS_POSTAL_ADDRESS: "",
      BUSINESS_SUPPORT_EMAIL: "support@example.com",
      BUSINESS_TIME_ZONE: "UTC",
      LEGAL_EFFECTIVE_DATE: "2026-11-24",
      WEBHOOK_DEADLINE_MS: 9_000,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: 4_000,
      WEBHOOK_MAX_RETRIES: 2,
      WEBHOOK_RETRY_BASE_MS: 300,
      REDELIVERY_SCHEDULE_SECONDS: [5, 60, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000],
      REDELIVERY_POLL_MS: 5_000,
      REDELIVERY_CONCURRENCY: 4,
      REDELIVERY_PASS_BUDGET_MS: 30_000,
      REDELIVERY_PROBE_SECONDS: 60,
      CRON_SECRET: undefined,
      RATE_LIMIT_FORM_POINTS: 5,
      RATE_LIMIT_FORM_WINDOW_SECONDS: 600,
      RATE_LIMIT_PHONE_POINTS: 3,
      RATE_LIMIT_PHONE_WINDOW_SECONDS: 86_400,
      RATE_LIMIT_EMAIL_POINTS: 3,
      RATE_LIMIT_EMAIL_WINDOW_SECONDS: 86_400,
      REDIS_URL: undefined,
      REDIS_COMMAND_TIMEOUT_MS: 300,
      PHONE_DEFAULT_COUNTRY: "US",
      WAITLIST_PHONE_COUNTRIES: ["US", "CA"],
      TRUSTED_PROXY_HOPS: 0,
      trustedProxyHopsFrom: "default",
      HEALTH_MAX_PENDING_AGE_SECONDS: 3_600,
      HEALTH_TOKEN: undefined,
      ALERT_WEBHOOK_URL: undefined,
      ALERT_WEBHOOK_SECRET: undefined,
      ALERT_MIN_INTERVAL_MINUTES: 60,
      ALERT_GRACE_MINUTES: 5,
      ALLOW_HTTP_WEBHOOKS: false,
      SITE_URL: undefined,
      SITE_ALIASES: [],
      CONSOLE_SETUP_TOKEN: undefined,
      AUDIT_RETENTION_DAYS: 400,
      VERCEL_PROJECT_PRODUCTION_URL: undefined,
      VERCEL: false,
      ENABLE_VERCEL_ANALYTICS: false,
      SOUS_SOCKET_ADDRESS_HEADER: undefined,
      webhooks: {
        contact: { url: undefined, secrets: undefined, auth: undefined, urlVariable: "CONTACT_WEBHOOK_URL" },
        waitlist: { url: undefined, secrets: undefined, auth: undefined, urlVariable: "WAITLIST_WEBHOOK_URL" },
        invitations: { url: undefined, secrets: undefined, auth: undefined, urlVariable: "INVITE_WEBHOOK_URL" },
      },
      ceilings: { waitlist: { perMinute: 30, perDay: 500 } },
      invite: { webhook: env.webhooks.invitations, link: undefined, perMinute: 60, hours: { from: 9, to: 20 } },
    });
  });

  // [variable, lowest accepted, highest accepted]: one below and one above are refused, naming the variable.
  const bounds: Array<[string, number, number]> = [
    ["LEAD_RETENTION_DAYS", 1, 3_650],
    ["CONSENT_RETENTION_DAYS", 1, 36_500],
    ["WEBHOOK_DEADLINE_MS", 1, 60_000],
    ["WEBHOOK_ATTEMPT_TIMEOUT_MS", 1, 60_000],
    ["WEBHOOK_MAX_RETRIES", 0, 5],
    ["WEBHOOK_RETRY_BASE_MS", 1, 60_000],
    ["REDELIVERY_POLL_MS", 100, 600_000],
    ["REDELIVERY_CONCURRENCY", 1, 64],
    ["REDELIVERY_PASS_BUDGET_MS", 100, 3_600_000],
    ["REDELIVERY_PROBE_SECONDS", 1, 3_600],
    ["RATE_LIMIT_FORM_POINTS", 1, 1_000_000_000],
    ["RATE_LIMIT_FORM_WINDOW_SECONDS", 1, 2_592_000],
    ["RATE_LIMIT_PHONE_POINTS", 1, 1_000_000_000],
    ["RATE_LIMIT_PHONE_WINDOW_SECONDS", 1, 2_592_000],
    ["RATE_LIMIT_EMAIL_POINTS", 1, 1_000_000_000],
    ["RATE_LIMIT_EMAIL_WINDOW_SECONDS", 1, 2_592_000],
    ["REDIS_COMMAND_TIMEOUT_MS", 10, 5_000],
    ["TRUSTED_PROXY_HOPS", 0, 10],
    ["HEALTH_MAX_PENDING_AGE_SECONDS", 1, 2_592_000],
    ["ALERT_MIN_INTERVAL_MINUTES", 1, 10_080],
    ["ALERT_GRACE_MINUTES", 1, 1_440],
  ];
  it.each(bounds)("takes %s from %i to %i, and nothing outside, nor a fraction", (variable, lowest, highest) => {
    const read = (value: number | string) =>
      withEnv({ [variable]: String(value) }, () => readEnv())[variable as keyof ReturnType<typeof readEnv>];
    expect(read(lowest)).toBe(lowest);
    expect(read(highest)).toBe(highest);
    for (const refused of [lowest - 1, highest + 1, `${lowest}.5`]) {
      expect(
        problemsOf(() => read(refused)),
        `${variable}=${refused}`,
      ).toStrictEqual([expect.stringMatching(new RegExp(`^${variable} `))]);
    }
  });

  it("takes redelivery delays of 1 s to 7 days, and secrets of 16 characters or more", () => {
    expect(
      withEnv({ REDELIVERY_SCHEDULE_SECONDS: "1, 604800" }, () => readEnv()).REDELIVERY_SCHEDULE_SECONDS,
    ).toStrictEqual([1, 604_800]);
    for (const schedule of ["0", "604801", "5,x", ","]) {
      expect(
        problemsOf(() => withEnv({ REDELIVERY_SCHEDULE_SECONDS: schedule }, () => readEnv())),
        schedule,
      ).toHaveLength(1);
    }
    for (const variable of ["CRON_SECRET", "HEALTH_TOKEN"]) {
      expect(withEnv({ [variable]: "x".repeat(16) }, () => readEnv())[variable as "CRON_SECRET"]).toBe("x".repeat(16));
      expect(problemsOf(() => withEnv({ [variable]: "x".repeat(15) }, () => readEnv()))).toStrictEqual([
        `${variable} must be at least 16 characters`,
      ]);
    }
  });
});

describe("each setting's refusal: its message, and a value wrong only at its start or end", () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  // [variable, refused value, the message that follows the variable's name]
  const refusals: Array<[string, string, string]> = [
    ["SITE_URL", "ftp://sous.example", "must be an http(s) URL"],
    ["SITE_URL", "xhttps://sous.example", "must be an http(s) URL"],
    ["SITE_URL", "httpsx://sous.example", "must be an http(s) URL"],
    ["DATABASE_URL", "xpostgres://db/sous", "must be a postgres:// or postgresql:// URL"],
    ["DATABASE_URL", "postgresqlx://db/sous", "must be a postgres:// or postgresql:// URL"],
    ["REDIS_URL", "xredis://cache:6379", "must be a redis:// or rediss:// URL"],
    ["REDIS_URL", "redisx://cache:6379", "must be a redis:// or rediss:// URL"],
    ["REDELIVERY_SCHEDULE_SECONDS", "x5", "must list whole seconds, e.g. 5,60,300"],
    ["REDELIVERY_SCHEDULE_SECONDS", "5x", "must list whole seconds, e.g. 5,60,300"],
    ["CONSENT_WEBHOOK_SECRET", `x${secret}`, "must be whsec_ followed by base64"],
    ["CONSENT_WEBHOOK_SECRET", `${secret}!`, "must be whsec_ followed by base64"],
    ["WAITLIST_PHONE_COUNTRIES", "US,XX", "must be a two-letter country code, e.g. US"],
    ["PHONE_DEFAULT_COUNTRY", "USA", "must be a two-letter country code, e.g. US"],
    ["BUSINESS_SUPPORT_EMAIL", "support at sous", "must be an email address"],
    ["BUSINESS_TIME_ZONE", "America/Springfield", "must be a time zone of the IANA database, e.g. America/New_York"],
    ["BUSINESS_TIME_ZONE", "Mars", "must be a time zone of the IANA database, e.g. America/New_York"],
    ["LEGAL_EFFECTIVE_DATE", "x2026-11-24", "must be a date, YYYY-MM-DD"],
    ["LEGAL_EFFECTIVE_DATE", "2026-11-24x", "must be a date, YYYY-MM-DD"],
    // No scheme at all (the address pasted without it): told as such, not thrown as a bare "Invalid URL".
    ["ALERT_WEBHOOK_URL", "hooks.example/x", "must be an http(s) URL"],
    [
      "ALERT_WEBHOOK_URL",
      "https://user:pass@hooks.example/x",
      "must not hold a user name or password (fetch refuses them; use the AUTH_HEADER variable)",
    ],
  ];
  it("take a time zone by its IANA name, spaces around it trimmed", () => {
    for (const zone of ["America/New_York", "Asia/Kathmandu", "UTC"])
      expect(withEnv({ BUSINESS_TIME_ZONE: ` ${zone} ` }, () => readEnv().BUSINESS_TIME_ZONE)).toBe(zone);
  });
  it.each(refusals)("%s=%s is refused: %s", (variable, value, message) => {
    expect(problemsOf(() => withEnv({ [variable]: value }, () => readEnv()))).toContainEqual(`${variable} ${message}`);
  });

  it("tells a webhook URL with no scheme only that it must be an http(s) URL, not that it holds a user name", () => {
    expect(problemsOf(() => withEnv({ ALERT_WEBHOOK_URL: "hooks.example/x" }, () => readEnv()))).toStrictEqual([
      "ALERT_WEBHOOK_URL must be an http(s) URL",
    ]);
  });

  it("takes the URL schemes it names, and the business's name and address up to their lengths", () => {
    const read = (variables: Record<string, string>) => withEnv(variables, () => readEnv());
    expect(read({ SITE_URL: "http://sous.example" }).SITE_URL).toBe("http://sous.example");
    expect(read({ DATABASE_URL: "postgres://db/sous" }).DATABASE_URL).toBe("postgres://db/sous");
    expect(read({ DATABASE_URL: "postgresql://db/sous" }).DATABASE_URL).toBe("postgresql://db/sous");
    expect(read({ REDIS_URL: "redis://cache:6379" }).REDIS_URL).toBe("redis://cache:6379");
    expect(read({ REDIS_URL: "rediss://cache:6379" }).REDIS_URL).toBe("rediss://cache:6379");
    expect(read({ BUSINESS_LEGAL_NAME: "x".repeat(200), BUSINESS_POSTAL_ADDRESS: "y".repeat(300) })).toMatchObject({
      BUSINESS_LEGAL_NAME: "x".repeat(200),
      BUSINESS_POSTAL_ADDRESS: "y".repeat(300),
    });
    expect(problemsOf(() => read({ BUSINESS_LEGAL_NAME: "x".repeat(201) }))).toStrictEqual([
      expect.stringMatching(/^BUSINESS_LEGAL_NAME /),
    ]);
    expect(problemsOf(() => read({ BUSINESS_POSTAL_ADDRESS: "y".repeat(301) }))).toStrictEqual([
      expect.stringMatching(/^BUSINESS_POSTAL_ADDRESS /),
    ]);
  });

  it("refuses an auth header that is not Name: value, or not printable ASCII, with what it should be", () => {
    for (const [value, message] of [
      ["X-Key value", 'must look like "Header-Name: value"'],
      [" X-Key: value", 'must look like "Header-Name: value"'],
      ["X-Key:", 'must look like "Header-Name: value"'],
      ["X-Key:  ", 'must look like "Header-Name: value"'],
      ["X-Key: clé", "must be printable ASCII"],
    ] as const) {
      expect(
        problemsOf(() => withEnv({ WAITLIST_WEBHOOK_AUTH_HEADER: value }, () => readEnv().webhooks.waitlist)),
        value,
      ).toContainEqual(`WAITLIST_WEBHOOK_AUTH_HEADER ${message}`);
    }
    expect(
      withEnv({ WAITLIST_WEBHOOK_AUTH_HEADER: "X-Key:\tvalue with spaces" }, () => readEnv().webhooks.waitlist).auth,
    ).toStrictEqual({ name: "X-Key", value: "value with spaces" });
  });
});

const inviteProblems = (values: Record<string, string>) => {
  try {
    withEnv(values, () => readEnv().invite);
    return [];
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
};

describe("the invitations' settings", () => {
  it("default to 60 a minute between 9:00 and 20:00, with no webhook and no link", () => {
    const settings = withEnv({}, () => readEnv().invite);
    // Blank is unset, as in the other settings: empty, or spaces only (a value pasted between quotes).
    for (const blank of ["", "   "])
      expect(withEnv({ INVITE_HOURS: " ", INVITE_URL: blank }, () => readEnv().invite)).toMatchObject({
        link: undefined,
        hours: { from: 9, to: 20 },
      });
    expect(settings).toMatchObject({ link: undefined, perMinute: 60, hours: { from: 9, to: 20 } });
    expect(settings.webhook).toMatchObject({ url: undefined, urlVariable: "INVITE_WEBHOOK_URL" });
    expect(
      withEnv(
        { INVITE_HOURS: " 8-21 ", INVITE_PER_MINUTE: "6000", INVITE_URL: "https://sous.example/start" },
        () => readEnv().invite,
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
      expect(withEnv({ INVITE_HOURS: written }, () => readEnv().invite).hours, written).toStrictEqual(hours);
  });

  it("refuse hours outside 8-21 or backwards, a pace of 0, and a link that is not https", () => {
    for (const hours of ["7-20", "9-22", "20-9", "9-9", "nine to five", "9", "9-20 pm", "from 9-20", "9x-20"])
      expect(inviteProblems({ INVITE_HOURS: hours })).toStrictEqual([
        expect.stringMatching(/^INVITE_HOURS must be two local hours FROM-TO within 8-21/),
      ]);
    expect(inviteProblems({ INVITE_PER_MINUTE: "0" })).toStrictEqual([expect.stringMatching(/^INVITE_PER_MINUTE/)]);
    expect(inviteProblems({ INVITE_URL: "http://sous.example/start" })).toStrictEqual([
      "INVITE_URL must be an https:// URL",
    ]);
    // Where the link leads, not the text's link: any length, any character a URL holds.
    const long = `https://app.sous.example/join?from=${"s".repeat(80)}~`;
    expect(withEnv({ INVITE_URL: long }, () => readEnv().invite).link).toBe(long);
    expect(
      inviteProblems({ INVITE_WEBHOOK_URL: "https://user:pass@n8n.example/webhook/sous-invitation" }),
    ).toStrictEqual([expect.stringMatching(/^INVITE_WEBHOOK_URL must not hold a user name or password/)]);
  });
});
