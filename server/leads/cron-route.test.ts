import { beforeEach, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/cron/redeliver/route";

const secret = "cron-secret-of-32-characters-xyz";
const call = (authorization?: string) =>
  GET(new Request("http://localhost/api/cron/redeliver", { headers: authorization ? { authorization } : {} }));

beforeEach(() => {
  vi.spyOn(console, "info").mockImplementation(() => {});
});

describe("the cron route", () => {
  it("does not exist without CRON_SECRET", async () => {
    vi.stubEnv("CRON_SECRET", "");
    expect((await call(`Bearer ${secret}`)).status).toBe(404);
  });

  it("refuses a call without Vercel Cron's bearer secret", async () => {
    vi.stubEnv("CRON_SECRET", secret);
    for (const authorization of [undefined, secret, `Bearer ${secret}x`, `Bearer ${secret.slice(1)}`, "Basic abc"]) {
      expect((await call(authorization)).status, String(authorization)).toBe(401);
    }
  });

  it("runs one redelivery pass for Vercel Cron and says what it did", async () => {
    vi.stubEnv("CRON_SECRET", secret);
    const response = await call(`Bearer ${secret}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual({ delivered: 0, pending: 0, dead: 0, busy: 0 });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});
