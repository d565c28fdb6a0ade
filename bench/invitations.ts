/**
 * Launch invitations at scale (docs/operating.md, "Inviting the waitlist").
 * Not a test: it prints numbers.
 *
 *   node --conditions=react-server --import tsx bench/invitations.ts
 *
 * 1. 1,000 consented numbers planned and queued in one wave, on SQLite and on
 *    Postgres (a throwaway server): seconds for the plan and for the queue.
 * 2. A wave of 200 numbers whose hours are open now, 5 more that text STOP
 *    once queued, and 5 whose hours are closed, drained at the default pace
 *    (INVITE_PER_MINUTE 60) through the invitations workflow on today's n8n to
 *    a fake Twilio, by passes run as the server's timer runs them: minutes,
 *    against the floor of 200 / 60, and the counts by state.
 */
import { plainEvidence } from "@/tests/support/waitlist-lead";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { smsTexts } from "@/lib/sms/program";
import { recordConsent } from "@/server/consent/consent-store";
import { disclosureOf } from "@/server/consent/disclosure";
import { inTransaction, closeDatabases, connect, type Store } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { invitationCounts } from "@/server/outbox/invitation-store";
import { invitationPass } from "@/server/invitations/invitation-pass";
import { planWave, queueWave } from "@/server/invitations/waves";
import { revokeConsent } from "@/server/consent/consent-changes";
import { newWebhookId } from "@/server/outbox/claims";
import { busiestWindow } from "../tests/support/busiest-window";
import { startFakeTwilio } from "../tests/support/fake-twilio";
import { startInvitationsN8n } from "../tests/support/n8n-server";
import { closedPrefix, numberUnder, openPrefix } from "../tests/support/open-zone";
import { startPostgresServer } from "../tests/support/postgres-server";
import { newWebhookSecret } from "../tests/support/webhook-secrets";
import { webhookPaths } from "../workflows/n8n/build";

const disclosure = disclosureOf("I agree to receive recurring automated texts. Reply STOP to cancel.");
const link = "https://sous.example/start";
// To the millisecond: a plan or a queue of 1,000 takes tens of them, and a change of 10% is a few.
const seconds = (ms: number) => (ms / 1000).toFixed(3);

async function signUp(store: Store, phones: readonly string[]) {
  await inTransaction(store, async (db) => {
    for (const [i, phone] of phones.entries())
      await recordConsent(db, {
        evidence: plainEvidence(phone, disclosure),
        leadId: newWebhookId(),
        at: 1_000 + i,
      });
  });
}

async function planAndQueue(label: string, store: Store) {
  const phones = Array.from({ length: 1_000 }, (_, i) => numberUnder("+1212", 1_000 + i));
  await signUp(store, phones);
  const began = performance.now();
  const plan = await planWave(store, { all: true });
  const planned = performance.now();
  const queued = await queueWave(store, {
    name: "bench",
    selection: { all: true },
    text: smsTexts.invitation(link),
    now: Date.now(),
  });
  const done = performance.now();
  console.log(
    `${label}: planned ${plan.chosen.length} in ${seconds(planned - began)} s; queued ${queued?.queued} (plan included) in ${seconds(done - planned)} s`,
  );
}

async function drain() {
  const folder = mkdtempSync(path.join(tmpdir(), "sous-bench-invite-"));
  const secret = newWebhookSecret();
  const twilio = await startFakeTwilio();
  const n8n = await startInvitationsN8n(twilio, secret);
  try {
    Object.assign(process.env, {
      INVITE_WEBHOOK_URL: n8n.webhookUrl(webhookPaths.invitations),
      INVITE_WEBHOOK_SECRET: secret,
      INVITE_URL: link,
      INVITE_HOURS: "9-20",
      // The open zone may be abroad (London at 14:00 UTC): a wave takes only WAITLIST_PHONE_COUNTRIES' numbers.
      WAITLIST_PHONE_COUNTRIES: [...new Set(["US", "CA", openPrefix(10, { from: 9, to: 20 }).country])].join(","),
    });
    delete process.env.INVITE_PER_MINUTE;
    const env = readEnv();
    const store = await connect({ DATA_DIR: folder, DATABASE_URL: undefined });
    const hours = { from: 9, to: 20 };
    const open = openPrefix(10, hours).prefix;
    const closed = closedPrefix(10, hours).prefix;
    const texted = Array.from({ length: 200 }, (_, i) => numberUnder(open, 100 + i));
    const stopping = Array.from({ length: 5 }, (_, i) => numberUnder(open, 400 + i));
    const waiting = Array.from({ length: 5 }, (_, i) => numberUnder(closed, 500 + i));
    await signUp(store, [...texted, ...stopping, ...waiting]);
    await queueWave(store, {
      name: "drain",
      selection: { all: true },
      text: smsTexts.invitation(link),
      now: Date.now(),
    });
    for (const phone of stopping) await revokeConsent(store, { phone, channel: "sms", source: "workflow" });
    const began = performance.now();
    // As the timer runs them: a pass of REDELIVERY_PASS_BUDGET_MS, then the next.
    for (;;) {
      await invitationPass(store, env, { budgetMs: env.REDELIVERY_PASS_BUDGET_MS });
      const counts = await invitationCounts(store);
      if (!counts.some((row) => row.state === "queued")) break;
    }
    const minutes = (performance.now() - began) / 60_000;
    const counts = Object.fromEntries((await invitationCounts(store)).map((row) => [row.state, row.count]));
    const atTwilio = twilio.acceptedAt().filter((message) => message.body === smsTexts.invitation(link));
    // The pace binds the site's sends; the carrier sees them after the workflow's varying latency.
    const carrierMinute = busiestWindow(
      atTwilio.map((message) => message.at),
      60_000,
    );
    console.log(
      `drain at ${env.REDELIVERY_PASS_BUDGET_MS} ms passes, INVITE_PER_MINUTE 60 (${open} open, ${closed} closed): ` +
        `${minutes.toFixed(2)} min for ${texted.length} (floor ${(texted.length / 60).toFixed(2)} min); ` +
        `counts ${JSON.stringify(counts)}; texts at the fake Twilio ${atTwilio.length}, busiest minute at the carrier ${carrierMinute}`,
    );
    await store.db.destroy();
  } finally {
    await n8n.stop();
    await twilio.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function main() {
  const folder = mkdtempSync(path.join(tmpdir(), "sous-bench-queue-"));
  const postgres = await startPostgresServer();
  try {
    const sqlite = await connect({ DATA_DIR: folder, DATABASE_URL: undefined });
    await planAndQueue("SQLite", sqlite);
    await sqlite.db.destroy();
    const pg = await connect({ DATA_DIR: folder, DATABASE_URL: postgres.url });
    await planAndQueue("Postgres", pg);
    await pg.db.destroy();
  } finally {
    await postgres.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  if (process.argv[2] !== "--queue-only") await drain();
  await closeDatabases();
}

void main();
