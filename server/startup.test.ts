import { beforeEach, describe, expect, it, vi } from "vitest";
import { startRedisServer } from "@/tests/support/redis-server";
import { checkEnvironmentAtStart } from "./startup";

function loggedLines(spy: { mock: { calls: unknown[][] } }) {
  return spy.mock.calls.map((call) => JSON.parse(String(call[0])));
}

describe("checkEnvironmentAtStart", () => {
  beforeEach(() => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", "");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "");
    vi.stubEnv("OUTBOX_DIR", "");
  });

  it("says where submissions go when a form has no webhook", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    expect(loggedLines(warn)).toEqual([
      expect.objectContaining({
        level: "warn",
        event: "outbox_default",
        form: "contact",
        file: "data/contact-outbox.jsonl",
        message: "CONTACT_WEBHOOK_URL is not set: contact submissions are appended to data/contact-outbox.jsonl",
      }),
      expect.objectContaining({ event: "outbox_default", form: "waitlist", file: "data/waitlist-outbox.jsonl" }),
    ]);
  });

  it("names only the webhook's host, never its secret-bearing path", async () => {
    vi.stubEnv("CONTACT_WEBHOOK_URL", "https://n8n.example.com/webhook/3f2c-secret-path");
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "https://hooks.zapier.com/hooks/catch/123/abc/");
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    await checkEnvironmentAtStart();
    const lines = loggedLines(info);
    expect(lines).toEqual([
      expect.objectContaining({ level: "info", event: "webhook_configured", form: "contact", host: "n8n.example.com" }),
      expect.objectContaining({ event: "webhook_configured", form: "waitlist", host: "hooks.zapier.com" }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("secret-path");
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

  it("stops the server when a variable is malformed", async () => {
    vi.stubEnv("WAITLIST_WEBHOOK_URL", "ftp://files.example.com/drop");
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
  });
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
    const line = await startupFailure("CONTACT_WEBHOOK_URL", "https://operator:s3cret-pass@n8n.example.com/webhook/lead");
    expect(line.event).toBe("startup_failed");
    expect(line.message).toContain("CONTACT_WEBHOOK_URL must not hold a user name or password");
    expect(line.message).not.toContain("s3cret-pass");
  });

  it("refuses an auth header value that is not printable ASCII", async () => {
    const line = await startupFailure("WAITLIST_WEBHOOK_AUTH_HEADER", "X-Sous-Key: clé-€-secrète");
    expect(line.message).toContain("WAITLIST_WEBHOOK_AUTH_HEADER must be printable ASCII");
    expect(line.message).not.toContain("secrète");
  });

  it("refuses a country the phone library does not know", async () => {
    const line = await startupFailure("WAITLIST_PHONE_COUNTRIES", "US,XX");
    expect(line.message).toContain("WAITLIST_PHONE_COUNTRIES");
  });
});
