import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { expect, test } from "./fixtures";

// A server of its own: the shared e2e server's receivers fail on purpose, and health reports that.
test("/api/health answers an uptime monitor: 200 ok, 503 receiver_failing from a failed delivery to the next success, never cached, no figures without the token", async () => {
  const receiver = await startWebhookReceiver();
  const dataDir = await mkdtemp(path.join(tmpdir(), "sous-health-"));
  const server = await startNextServer({
    WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    DATA_DIR: dataDir,
    REDELIVERY_SCHEDULE_SECONDS: "86400",
  });
  try {
    const health = async (headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}/api/health`, { headers });
      return { status: response.status, cache: response.headers.get("cache-control"), body: await response.json() };
    };
    expect(await health()).toStrictEqual({ status: 200, cache: "no-store", body: { status: "ok" } });
    expect((await health({ authorization: "Bearer a-guess-of-at-least-16-chars" })).body).toStrictEqual({
      status: "ok",
    });

    receiver.outage(503);
    await postSignupWithoutScript(server.url, { name: "Ada Monitor", phone: "(555) 010-7001", consent: "on" });
    await expect
      .poll(async () => (await health()).body)
      .toStrictEqual({ status: "degraded", problems: ["receiver_failing"] });
    expect((await health()).status).toBe(503);

    receiver.outage(undefined);
    await postSignupWithoutScript(server.url, { name: "Bo Monitor", phone: "(555) 010-7002", consent: "on" });
    await expect.poll(async () => (await health()).status).toBe(200);
  } finally {
    await server.stop();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
