import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitlistMessages } from "@/lib/forms/waitlist";
import { SQLite } from "@/server/db/sqlite-driver";
import { postSignupWithoutScript, startNextServer } from "../support/next-server";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { uniquePhone } from "./receiver-client";
import { expect, test } from "./fixtures";

// A post on a popular account: 45 chefs, each from their own address and number, within 30 seconds, against the
// waitlist's ceiling of 30 texts a minute. Nobody is turned away; the texts keep to the budget.
test("a launch spike loses no chef: all 45 told they joined and kept, at most 30 texted a minute, each once", async () => {
  test.setTimeout(240_000);
  const dataDir = await mkdtemp(path.join(tmpdir(), "sous-spike-"));
  const receiver = await startWebhookReceiver();
  const server = await startNextServer({
    DATA_DIR: dataDir,
    WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    RATE_LIMIT_WAITLIST_PER_MINUTE: "30",
    WAITLIST_DAILY_LIMIT: "500",
  });
  try {
    const chefs = Array.from({ length: 45 }, (_, i) => ({
      fields: { name: `Spike ${process.pid}x${i}y`, phone: uniquePhone().e164, consent: "on" },
      address: `198.51.100.${i + 1}`,
    }));
    const began = Date.now();
    const answers = await Promise.all(
      chefs.map(async ({ fields, address }, i) => {
        await sleep(i * 600);
        return postSignupWithoutScript(server.url, fields, { "x-forwarded-for": address });
      }),
    );
    expect(Date.now() - began).toBeLessThan(40_000);
    expect(answers.filter((answer) => answer.html.includes(waitlistMessages.success.title))).toHaveLength(45);

    const db = new SQLite(path.join(dataDir, "sous.db"), { readonly: true, fileMustExist: true });
    try {
      expect(db.prepare("select count(*) as n from consents").get()).toStrictEqual({ n: 45 });
    } finally {
      db.close();
    }

    const names = chefs.map(({ fields }) => fields.name);
    const texted = () => names.filter((name) => receiver.withName(name).length > 0);
    await expect.poll(() => texted().length, { timeout: 180_000 - (Date.now() - began), intervals: [1_000] }).toBe(45);
    expect(names.map((name) => receiver.withName(name).length)).toStrictEqual(names.map(() => 1));
    const first = Math.min(...receiver.received.map((request) => request.at));
    expect(receiver.received.filter((request) => request.at < first + 60_000).length).toBeLessThanOrEqual(30);
  } finally {
    await server.stop();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
