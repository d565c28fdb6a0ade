/**
 * What a stranger's requests cost, and what a sign-up's answer tells
 * (docs/security.md, "What a request can cost the server"). Not a test: it
 * prints numbers. Needs the production build (`npm run build`).
 *
 *   node --conditions=react-server --import tsx bench/request-costs.ts
 *
 * 1. GET / answered alone, then sent at the same moment as 20 requests for
 *    unknown paths of a few characters (the floor: 20 404 pages), then as 20
 *    for paths of 15.5 KB, the longest Node takes (each masked for the log):
 *    median and p95 of each.
 * 2. A no-JavaScript sign-up's answer for a new number (delivered to a
 *    webhook that answers in about 100 ms), the same number again, and a
 *    number that replied STOP: status, where it sends the browser, and the
 *    time each took (median, p95), side by side.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "@/server/db/connect";
import { revokeConsent } from "@/server/consent/consent-changes";
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

/** GET /'s time while `paths` are asked for at the same moment, in `rounds` rounds. */
async function pageBeside(url: string, paths: readonly string[], rounds = 30) {
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const beside = paths.map(async (path) => (await fetch(`${url}${path}`)).text());
    times.push(await timed(async () => (await fetch(url)).text()));
    await Promise.all(beside);
  }
  return times;
}

async function pageUnderLongPaths(url: string) {
  // As long as Node takes a request line (its headers, the line included, stop at 16 KiB: 431 past that), of one
  // letter: what an address pattern reads furthest from each place before it gives up.
  const long = `/${"a".repeat(15_500)}`;
  // Warm: the first requests of a server compile and cache.
  await pageBeside(url, Array(20).fill("/warm"), 5);
  console.log(`GET / alone: ${summary(await pageBeside(url, []))}`);
  // The floor: 20 unknown paths of a few characters, each a 404 page and a log line like the long ones.
  console.log(
    `GET / beside 20 short unknown paths at once: ${summary(await pageBeside(url, Array(20).fill("/nope")))}`,
  );
  console.log(`GET / beside 20 paths of 15.5 KB at once: ${summary(await pageBeside(url, Array(20).fill(long)))}`);
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
    // The production build (.next), as `npm run build` made it.
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
