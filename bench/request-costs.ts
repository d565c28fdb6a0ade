/**
 * What a stranger's requests cost, and what a sign-up's answer tells
 * (docs/security.md, "What a request can cost the server"). Not a test: it
 * prints numbers. Needs the production build (`npm run build`).
 *
 *   node --conditions=react-server --import tsx bench/request-costs.ts
 *
 * 1. GET / answered alone, then while 20 clients keep asking for 16 KB paths
 *    no route answers (each masked for the log): median and p95 of each.
 * 2. A no-JavaScript sign-up's answer for a new number (delivered to a
 *    webhook that answers in about 100 ms), the same number again, and a
 *    number that replied STOP: status, where it sends the browser, and the
 *    time each took (median, p95), side by side.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "@/server/db/connect";
import { revokeConsent } from "@/server/leads/consent-changes";
import { postSignupWithoutScript, startNextServer } from "../tests/support/next-server";
import { startWebhookReceiver } from "../tests/support/webhook-receiver";

const ms = (values: number[], at: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(at * sorted.length))]!.toFixed(1);
};
const summary = (values: number[]) => `median ${ms(values, 0.5)} ms, p95 ${ms(values, 0.95)} ms (n ${values.length})`;

async function timed(run: () => Promise<unknown>) {
  const began = performance.now();
  await run();
  return performance.now() - began;
}

async function pageUnderLongPaths(url: string) {
  const alone: number[] = [];
  for (let i = 0; i < 60; i += 1) alone.push(await timed(async () => (await fetch(url)).text()));
  let flooding = true;
  const longPath = `/${"a@b.c/".repeat(Math.ceil(16_384 / 6)).slice(0, 16_384)}`;
  const flood = Array.from({ length: 20 }, async () => {
    while (flooding) await (await fetch(`${url}${longPath}`)).text();
  });
  const busy: number[] = [];
  for (let i = 0; i < 60; i += 1) busy.push(await timed(async () => (await fetch(url)).text()));
  flooding = false;
  await Promise.all(flood);
  console.log(`GET / alone: ${summary(alone)}`);
  console.log(`GET / beside 20 clients asking for 16 KB paths: ${summary(busy)}`);
}

async function signupAnswers(url: string, folder: string) {
  const count = 20;
  const phones = Array.from({ length: count }, (_, i) => `(212) 555-${String(100 + i).padStart(4, "0")}`);
  const kinds: Record<string, { times: number[]; answers: Set<string> }> = {};
  const signUp = async (kind: string, phone: string, i: number) => {
    let answer = "";
    const took = await timed(async () => {
      const posted = await postSignupWithoutScript(
        url,
        { name: `Chef ${kind} ${i}`, phone, consent: "on" },
        {},
        undefined,
        {
          follow: false,
        },
      );
      answer = `${posted.status} ${posted.location}`;
    });
    kinds[kind] ??= { times: [], answers: new Set() };
    kinds[kind].times.push(took);
    kinds[kind].answers.add(answer);
  };
  for (const [i, phone] of phones.entries()) await signUp("new", phone, i);
  for (const [i, phone] of phones.entries()) await signUp("repeated", phone, i);
  const store = await connect({ DATA_DIR: folder, DATABASE_URL: undefined });
  for (let i = 0; i < count; i += 1)
    await revokeConsent(store, {
      phone: `+1212555${String(100 + i).padStart(4, "0")}`,
      channel: "sms",
      source: "workflow",
    });
  await store.db.destroy();
  for (const [i, phone] of phones.entries()) await signUp("once stopped", phone, i);
  for (const [kind, { times, answers }] of Object.entries(kinds))
    console.log(`sign-up, ${kind}: answered ${[...answers].join(" | ")}; ${summary(times)}`);
}

async function main() {
  const folder = mkdtempSync(path.join(tmpdir(), "sous-bench-costs-"));
  const receiver = await startWebhookReceiver();
  receiver.slow(100);
  const server = await startNextServer({
    // The production build; E2E_TEST_BUILD=1 measures the test build instead.
    E2E_TEST_BUILD: process.env.E2E_TEST_BUILD ?? "0",
    DATA_DIR: folder,
    WAITLIST_WEBHOOK_URL: `${receiver.url}/hooks/waitlist`,
    RATE_LIMIT_FORM_POINTS: "100000",
    RATE_LIMIT_PHONE_POINTS: "100000",
    RATE_LIMIT_WAITLIST_PER_MINUTE: "100000",
    WAITLIST_DAILY_LIMIT: "100000",
  });
  try {
    await pageUnderLongPaths(server.url);
    await signupAnswers(server.url, folder);
  } finally {
    await server.stop();
    await receiver.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

void main();
