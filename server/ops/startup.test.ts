import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { newWebhookSecret } from "@/tests/support/webhook-secrets";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { freePort } from "@/tests/support/processes";
import { startRedisServer } from "@/tests/support/redis-server";
import { closeDatabases, database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { addOperator, commandActor } from "@/server/operators/operators";
import { checkEnvironmentAtStart } from "./startup";

function loggedLines(spy: { mock: { calls: unknown[][] } }) {
  return spy.mock.calls.map((call) => JSON.parse(String(call[0])));
}

describe("checkEnvironmentAtStart", () => {
  beforeEach(() => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", "");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    vi.stubEnv("INVITE_WEBHOOK_URL", "");
    vi.spyOn(console, "info").mockImplementation(() => {});
  });

  it("says where submissions go when a form has no webhook", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(warn).filter((line) => line.event === "webhook_unset")).toEqual([
      expect.objectContaining({
        level: "warn",
        event: "webhook_unset",
        form: "contact",
        message:
          "CONTACT_WEBHOOK_URL is not set: contact submissions are kept as held leads (npm run leads -- export --form contact) and delivered once it is set",
      }),
      expect.objectContaining({ event: "webhook_unset", form: "waitlist" }),
      expect.objectContaining({
        event: "webhook_unset",
        receiver: "invitations",
        message:
          "INVITE_WEBHOOK_URL is not set: npm run invite -- send refuses, and invitations already queued wait until it is set",
      }),
    ]);
  });

  it("makes the rate limits' own key at the first start without RATE_LIMIT_KEY_SECRET, and says so; none with the secret", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const keyLines = () => loggedLines(info).filter((line) => line.event === "rate_limit_key");
    const dataDir = await mkdtemp(path.join(tmpdir(), "sous-limit-key-"));
    vi.stubEnv("DATA_DIR", dataDir);
    try {
      vi.stubEnv("RATE_LIMIT_KEY_SECRET", "limit-key-secret-of-32-characters-or-more");
      await checkEnvironmentAtStart();
      const store = await database(readEnv());
      expect(keyLines()).toEqual([]);
      expect(await store.db.selectFrom("limit_keys").selectAll().execute()).toEqual([]);
      vi.stubEnv("RATE_LIMIT_KEY_SECRET", "");
      await checkEnvironmentAtStart();
      expect(keyLines()).toEqual([
        expect.objectContaining({
          level: "info",
          from: "database",
          message: expect.stringContaining(
            "RATE_LIMIT_KEY_SECRET is not set: the rate limits count under a random key",
          ),
        }),
      ]);
      const made = await store.db.selectFrom("limit_keys").selectAll().execute();
      expect(made).toEqual([expect.objectContaining({ name: "person" })]);
      // Never printed: the key is a secret like the one it stands in for.
      expect(JSON.stringify(info.mock.calls)).not.toContain(made[0]!.secret);
      // A second start keeps the key it made.
      await checkEnvironmentAtStart();
      expect(await store.db.selectFrom("limit_keys").selectAll().execute()).toStrictEqual(made);
    } finally {
      // Closed first: its checkpointer may still be writing in the folder.
      await closeDatabases();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("says where invitations go, and warns when they would go out unsigned", async () => {
    vi.stubEnv("INVITE_WEBHOOK_URL", "https://n8n.example.com/webhook/sous-invitation");
    vi.stubEnv("INVITE_WEBHOOK_SECRET", "");
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(info).filter((line) => line.receiver === "invitations")).toEqual([
      expect.objectContaining({ event: "webhook_configured", host: "n8n.example.com", secrets: 0, authHeader: false }),
    ]);
    // Neither the secret nor the auth header: what `invite -- send` does then, refuse unless told --unsigned.
    expect(loggedLines(warn).filter((line) => line.event === "webhook_unsigned")).toEqual([
      expect.objectContaining({
        receiver: "invitations",
        message:
          "INVITE_WEBHOOK_URL is set without INVITE_WEBHOOK_SECRET: invitations would go out unsigned, and anyone who learns the URL could have the workflow text any number (docs/webhooks.md); npm run invite -- send refuses a wave unless told --unsigned",
      }),
    ]);
    // The auth header alone: `send` sends (scripts/invite-command.test.ts), and the line says so, refusing nothing.
    vi.stubEnv("INVITE_WEBHOOK_AUTH_HEADER", "X-Invite-Key: invite-header-value-0123456789");
    warn.mockClear();
    await checkEnvironmentAtStart();
    const headerOnly = loggedLines(warn).filter((line) => line.event === "webhook_unsigned");
    expect(headerOnly).toEqual([
      expect.objectContaining({
        receiver: "invitations",
        message:
          "INVITE_WEBHOOK_URL is set without INVITE_WEBHOOK_SECRET: invitations go out unsigned, with only INVITE_WEBHOOK_AUTH_HEADER, which anyone who sees one request can send again (docs/webhooks.md); npm run invite -- send sends them so",
      }),
    ]);
    expect(JSON.stringify(headerOnly)).not.toContain("invite-header-value");
    vi.stubEnv("INVITE_WEBHOOK_AUTH_HEADER", "");
    // Its working twin: signed, no warning.
    vi.stubEnv("INVITE_WEBHOOK_SECRET", "whsec_" + Buffer.from("invite-secret-for-tests-32-bytes").toString("base64"));
    warn.mockClear();
    await checkEnvironmentAtStart();
    expect(loggedLines(warn).filter((line) => line.event === "webhook_unsigned")).toEqual([]);
  });

  it("warns, and starts, while the business's address or support email is the placeholder the legal pages would show", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const identityWarnings = () => loggedLines(warn).filter((line) => line.event === "business_identity_default");
    await checkEnvironmentAtStart();
    expect(identityWarnings()).toStrictEqual([
      expect.objectContaining({
        level: "warn",
        variables: ["BUSINESS_POSTAL_ADDRESS", "BUSINESS_SUPPORT_EMAIL"],
        message: expect.stringContaining("postal address or support email"),
      }),
    ]);

    warn.mockClear();
    vi.stubEnv("BUSINESS_POSTAL_ADDRESS", "12 Rue Saint-Paul, Montréal QC H2Y 1G9, Canada");
    await checkEnvironmentAtStart();
    expect(identityWarnings()).toStrictEqual([
      expect.objectContaining({
        variables: ["BUSINESS_SUPPORT_EMAIL"],
        message: expect.stringContaining("no real support email"),
      }),
    ]);

    warn.mockClear();
    vi.stubEnv("BUSINESS_POSTAL_ADDRESS", "");
    vi.stubEnv("BUSINESS_SUPPORT_EMAIL", "help@sous.chef");
    await checkEnvironmentAtStart();
    expect(identityWarnings()).toStrictEqual([
      expect.objectContaining({
        variables: ["BUSINESS_POSTAL_ADDRESS"],
        message:
          "BUSINESS_POSTAL_ADDRESS left at the default: /terms and /privacy show no real postal address, which carriers' SMS registration and CASL expect",
      }),
    ]);
    vi.stubEnv("BUSINESS_POSTAL_ADDRESS", "12 Rue Saint-Paul, Montréal QC H2Y 1G9, Canada");

    warn.mockClear();
    vi.stubEnv("BUSINESS_SUPPORT_EMAIL", "help@sous.chef");
    await checkEnvironmentAtStart();
    expect(identityWarnings()).toStrictEqual([]);
  });

  it("says the revoke route is off while CONSENT_WEBHOOK_SECRET is unset", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(warn)).toContainEqual(
      expect.objectContaining({
        event: "consent_revoke_unset",
        message: expect.stringMatching(/\/api\/consent\/renew answer 404.*npm run consent -- revoke/),
      }),
    );
    warn.mockClear();
    vi.stubEnv("CONSENT_WEBHOOK_SECRET", `whsec_${Buffer.alloc(32, 7).toString("base64")}`);
    await checkEnvironmentAtStart();
    expect(loggedLines(warn).map((line) => line.event)).not.toContain("consent_revoke_unset");
  });

  it("says where alerts go, by host only, when ALERT_WEBHOOK_URL is set", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(info).map((line) => line.event)).not.toContain("alerts_configured");
    vi.stubEnv("ALERT_WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/secret-path");
    await checkEnvironmentAtStart();
    expect(loggedLines(info).filter((line) => line.event === "alerts_configured")).toStrictEqual([
      expect.objectContaining({ level: "info", event: "alerts_configured", host: "hooks.slack.com" }),
    ]);
  });

  it("says whether /console/setup is open: with a token and no owner, closed once an owner exists, and how to add one without a token", async () => {
    const states = async (token: string) => {
      vi.stubEnv("CONSOLE_SETUP_TOKEN", token);
      const info = vi.spyOn(console, "info").mockImplementation(() => {});
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      await checkEnvironmentAtStart();
      const lines = [...loggedLines(info), ...loggedLines(warn)].filter((line) => line.event === "console_setup");
      info.mockClear();
      warn.mockClear();
      return lines.map(({ level, state, message }) => ({ level, state, message }));
    };
    const store = await database(readEnv());
    await store.db.deleteFrom("operators").execute();
    expect(await states("")).toStrictEqual([
      {
        level: "info",
        state: "no owner",
        message:
          "no console owner yet: npm run operators -- add EMAIL --role owner, or CONSOLE_SETUP_TOKEN for /console/setup",
      },
    ]);
    expect(await states("t".repeat(32))).toStrictEqual([
      {
        level: "warn",
        state: "open",
        message: "no console owner yet: /console/setup enrols the first with CONSOLE_SETUP_TOKEN",
      },
    ]);
    await addOperator(store, { email: "owner@sous.example", role: "owner", by: commandActor });
    expect(await states("t".repeat(32))).toStrictEqual([
      {
        level: "info",
        state: "closed",
        message: "a console owner exists: CONSOLE_SETUP_TOKEN does nothing now and can be removed",
      },
    ]);
    // An owner and no token: nothing to say.
    expect(await states("")).toStrictEqual([]);
  });

  it("opens and migrates the database before the first visitor, and says which", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(info)).toContainEqual(
      expect.objectContaining({
        event: "database_ready",
        engine: "sqlite",
        at: path.join(String(process.env.DATA_DIR), "sous.db"),
      }),
    );
  });

  it("names only the webhook's host, never its secret-bearing path", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", "https://n8n.example.com/webhook/3f2c-secret-path");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "https://hooks.zapier.com/hooks/catch/123/abc/");
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    const lines = loggedLines(info).filter((line) => line.event === "webhook_configured");
    expect(lines).toEqual([
      expect.objectContaining({ level: "info", event: "webhook_configured", form: "contact", host: "n8n.example.com" }),
      expect.objectContaining({ event: "webhook_configured", form: "waitlist", host: "hooks.zapier.com" }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("secret-path");
  });

  it("warns when the support email makes the HELP text longer than one SMS segment, and not at 25 characters", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    vi.stubEnv("BUSINESS_SUPPORT_EMAIL", `${"a".repeat(13)}@example.com`);
    await checkEnvironmentAtStart();
    expect(loggedLines(warn).filter((line) => line.event === "support_email_long")).toStrictEqual([]);
    vi.stubEnv("BUSINESS_SUPPORT_EMAIL", `${"a".repeat(14)}@example.com`);
    await checkEnvironmentAtStart();
    expect(loggedLines(warn).filter((line) => line.event === "support_email_long")).toStrictEqual([
      expect.objectContaining({
        level: "warn",
        characters: 26,
        message: expect.stringContaining("HELP text 161 characters"),
      }),
    ]);
  });

  it("says how many secrets sign each form's deliveries, never which, and warns of a webhook that goes unsigned", async () => {
    const [first, second] = [newWebhookSecret(), newWebhookSecret()];
    vi.stubEnv("CONTACT_WEBHOOK_URL", "https://n8n.example.com/webhook/contact");
    vi.stubEnv("CONTACT_WEBHOOK_SECRET", "");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "https://n8n.example.com/webhook/waitlist");
    vi.stubEnv("WAITLIST_WEBHOOK_SECRET", `${first} ${second}`);
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(info).filter((line) => line.event === "webhook_configured")).toEqual([
      expect.objectContaining({ form: "contact", secrets: 0, authHeader: false }),
      expect.objectContaining({ form: "waitlist", secrets: 2, authHeader: false }),
    ]);
    const unsigned = loggedLines(warn).filter((line) => line.event === "webhook_unsigned");
    expect(unsigned).toEqual([
      expect.objectContaining({
        level: "warn",
        form: "contact",
        message: expect.stringContaining(
          "CONTACT_WEBHOOK_URL is set without CONTACT_WEBHOOK_SECRET: contact deliveries go out unsigned",
        ),
      }),
    ]);
    const printed = JSON.stringify([...info.mock.calls, ...warn.mock.calls]);
    for (const secret of [first, second]) expect(printed).not.toContain(secret.slice(6, 20));
  });

  it("says where a visitor's address comes from, who set it, and warns where a forged X-Forwarded-For would be believed", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const startWith = async (hops: string) => {
      vi.stubEnv("TRUSTED_PROXY_HOPS", hops);
      for (const spy of [info, warn, error]) spy.mockClear();
      await checkEnvironmentAtStart();
      return [...loggedLines(info), ...loggedLines(warn), ...loggedLines(error)].filter(
        (line) => line.event === "client_address",
      );
    };

    // Unset, not started by npm start: the socket's address is wanted, and missing.
    expect(await startWith("")).toEqual([
      expect.objectContaining({
        level: "error",
        trustedProxyHops: 0,
        setBy: "default",
        from: "unavailable",
        message: expect.stringContaining("only npm start"),
      }),
    ]);
    expect(await startWith("2")).toEqual([
      expect.objectContaining({
        level: "warn",
        trustedProxyHops: 2,
        setBy: "setting",
        from: "x-forwarded-for",
        message: expect.stringContaining("2 proxies back"),
      }),
    ]);
    expect(await startWith("1")).toEqual([
      expect.objectContaining({
        level: "warn",
        setBy: "setting",
        message: expect.stringContaining("a visitor can write their own"),
      }),
    ]);
    vi.stubEnv("SOUS_SOCKET_ADDRESS_HEADER", "x-sous-socket-0123456789abcdef");
    for (const hops of ["", "0"]) {
      expect(await startWith(hops)).toEqual([
        expect.objectContaining({
          level: "info",
          trustedProxyHops: 0,
          setBy: hops ? "setting" : "default",
          from: "socket",
          message: expect.stringContaining("X-Forwarded-For is ignored"),
        }),
      ]);
    }
  });

  it("connects to Redis before the first visitor, and says the limits are shared", async () => {
    const redis = await startRedisServer();
    try {
      vi.stubEnv("REDIS_URL", redis.url);
      const info = vi.spyOn(console, "info").mockImplementation(() => {});
      vi.spyOn(console, "warn").mockImplementation(() => {});
      await checkEnvironmentAtStart();
      expect(loggedLines(info)).toContainEqual(
        expect.objectContaining({ event: "rate_limits_shared", store: "redis", host: new URL(redis.url).host }),
      );
    } finally {
      await redis.stop();
    }
  });

  it("says when Redis does not answer at start that the limits count in memory, naming its host and never its password", async () => {
    const port = await freePort();
    vi.stubEnv("REDIS_URL", `redis://:redis-s3cret@127.0.0.1:${port}`);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(warn)).toContainEqual(
      expect.objectContaining({
        level: "warn",
        event: "redis_unreachable",
        host: `127.0.0.1:${port}`,
        message: "rate limits count in memory until Redis answers",
      }),
    );
    expect(loggedLines(info).map((line) => line.event)).not.toContain("rate_limits_shared");
    expect(JSON.stringify([...warn.mock.calls, ...info.mock.calls])).not.toContain("redis-s3cret");
  }, 15_000);

  // The second: an address pasted without its scheme, which is no URL at all.
  it.each(["ftp://files.example.com/drop", "files.example.com/drop"])(
    "stops the server when a variable is malformed (%s), naming it",
    async (value) => {
      vi.stubEnv("WAITLIST_WEBHOOK_URL", value);
      const error = vi.spyOn(console, "error").mockImplementation(() => {});
      const exit = vi.spyOn(process, "exit").mockImplementation(() => {
        throw new Error("process.exit");
      });
      await expect(checkEnvironmentAtStart()).rejects.toThrow("process.exit");
      expect(exit).toHaveBeenCalledWith(1);
      expect(loggedLines(error)[0]).toMatchObject({
        event: "startup_failed",
        message: expect.stringContaining("WAITLIST_WEBHOOK_URL must be an http(s) URL"),
      });
    },
  );
});

describe("checkEnvironmentAtStart refusing settings that can never deliver", () => {
  async function startupFailure(variable: string, value: string) {
    vi.stubEnv(variable, value);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("process.exit");
    });
    await expect(checkEnvironmentAtStart()).rejects.toThrow("process.exit");
    return loggedLines(error)[0] as { event: string; message: string };
  }

  it("refuses a webhook URL that carries a user name and password, naming the variable and not the value", async () => {
    const line = await startupFailure(
      "CONTACT_WEBHOOK_URL",
      "https://operator:s3cret-pass@n8n.example.com/webhook/lead",
    );
    expect(line.event).toBe("startup_failed");
    expect(line.message).toContain("CONTACT_WEBHOOK_URL must not hold a user name or password");
    expect(line.message).not.toContain("s3cret-pass");
  });

  it("refuses an auth header value that is not printable ASCII", async () => {
    const line = await startupFailure("WAITLIST_WEBHOOK_AUTH_HEADER", "X-Sous-Key: clé-€-secrète");
    expect(line.message).toContain("WAITLIST_WEBHOOK_AUTH_HEADER must be printable ASCII");
    expect(line.message).not.toContain("secrète");
  });

  it("refuses a DATA_DIR where the database cannot live, naming the setting", async () => {
    const line = await startupFailure("DATA_DIR", path.join(import.meta.filename, "data"));
    expect(line.event).toBe("startup_failed");
    expect(line.message).toMatch(/DATA_DIR: .* cannot hold the database: ENOTDIR/);
  });

  it("refuses a DATA_DIR the kernel will not create (under /proc) at once, instead of hanging", async () => {
    const line = await startupFailure("DATA_DIR", "/proc/sous-nope/data");
    expect(line.event).toBe("startup_failed");
    expect(line.message).toMatch(/DATA_DIR: \/proc\/sous-nope\/data cannot hold the database: ENOENT/);
  });

  it("refuses an http:// webhook URL to another machine, naming it and the way out", async () => {
    const line = await startupFailure("WAITLIST_WEBHOOK_URL", "http://n8n.example.com/webhook/sous-waitlist");
    expect(line.message).toContain("WAITLIST_WEBHOOK_URL is http:// to another machine");
    expect(line.message).toContain("ALLOW_HTTP_WEBHOOKS=true");
  });

  it("refuses an http:// alert URL to another machine too", async () => {
    const alert = await startupFailure("ALERT_WEBHOOK_URL", "http://hooks.example.com/alert");
    expect(alert.message).toContain("ALERT_WEBHOOK_URL is http:// to another machine");
  });

  it("starts with https:// and with http:// to this machine; warns of http:// elsewhere that ALLOW_HTTP_WEBHOOKS allows", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const inClear = () => loggedLines(warn).filter((line) => line.event === "webhook_in_clear");
    vi.stubEnv("ALERT_WEBHOOK_URL", "https://hooks.example.com/alert");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "http://127.0.0.1:5678/webhook/sous-waitlist");
    vi.stubEnv("CONTACT_WEBHOOK_URL", "http://localhost:5678/webhook/sous-contact");
    await checkEnvironmentAtStart();
    expect(inClear()).toStrictEqual([]);

    vi.stubEnv("CONTACT_WEBHOOK_URL", "http://n8n.internal:5678/webhook/sous-contact");
    vi.stubEnv("ALLOW_HTTP_WEBHOOKS", "true");
    await checkEnvironmentAtStart();
    expect(inClear()).toStrictEqual([expect.objectContaining({ level: "warn", variables: ["CONTACT_WEBHOOK_URL"] })]);
  });

  it("warns when a settings file others can read holds the secrets, naming chmod 600", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sous-envfiles-"));
    try {
      vi.spyOn(process, "cwd").mockReturnValue(dir);
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const readable = () => loggedLines(warn).filter((line) => line.event === "env_file_readable");
      await writeFile(path.join(dir, ".env.local"), "WAITLIST_WEBHOOK_SECRET=whsec_x\n", { mode: 0o600 });
      await writeFile(path.join(dir, ".env"), "PORT=3000\n", { mode: 0o600 });
      await chmod(path.join(dir, ".env.local"), 0o600);
      await chmod(path.join(dir, ".env"), 0o600);
      await checkEnvironmentAtStart();
      expect(readable()).toStrictEqual([]);

      // What `cp .env.example .env.local` makes under the usual umask.
      await chmod(path.join(dir, ".env.local"), 0o644);
      await chmod(path.join(dir, ".env"), 0o640);
      await checkEnvironmentAtStart();
      expect(readable()).toStrictEqual([
        expect.objectContaining({
          files: [".env", ".env.local"],
          message: expect.stringContaining("chmod 600 .env .env.local"),
        }),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unreachable Postgres, naming DATABASE_URL and never its password", async () => {
    const line = await startupFailure("DATABASE_URL", "postgres://sous:pg-s3cret@127.0.0.1:1/sous");
    expect(line.message).toContain("DATABASE_URL: Postgres at 127.0.0.1:1/sous cannot be used");
    expect(line.message).not.toContain("pg-s3cret");
  });

  it("refuses to run on Vercel without DATABASE_URL: its functions have no disk to keep leads on", async () => {
    const line = await startupFailure("VERCEL", "1");
    expect(line.message).toContain("DATABASE_URL must be set on Vercel");
  });

  it("refuses a country the phone library does not know", async () => {
    const line = await startupFailure("WAITLIST_PHONE_COUNTRIES", "US,XX");
    expect(line.message).toContain("WAITLIST_PHONE_COUNTRIES");
  });

  it.each([
    ["BUSINESS_SUPPORT_EMAIL", "support at sous", "BUSINESS_SUPPORT_EMAIL must be an email address"],
    ["LEGAL_EFFECTIVE_DATE", "24/11/2026", "LEGAL_EFFECTIVE_DATE must be a date, YYYY-MM-DD"],
    ["LEGAL_EFFECTIVE_DATE", "2026-02-30", "LEGAL_EFFECTIVE_DATE must be a real date"],
    ["CONSENT_WEBHOOK_SECRET", "not-a-secret", "CONSENT_WEBHOOK_SECRET"],
    ["CONSENT_RETENTION_DAYS", "0", "CONSENT_RETENTION_DAYS"],
  ])("refuses %s=%s, naming it", async (variable, value, expected) => {
    const line = await startupFailure(variable, value);
    expect(line.message).toContain(expected);
  });
});
