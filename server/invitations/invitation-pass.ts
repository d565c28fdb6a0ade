import "server-only";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { consentStandings } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import type { InvitationState } from "@/server/db/schema";
import type { ServerEnv } from "@/server/env";
import { CLAIM_MARGIN_MS } from "@/server/leads/lead-store";
import { nextAttemptAfter } from "@/server/leads/retry-policy";
import { failureOf, postSigned } from "@/server/leads/send";
import { logEvent } from "@/server/log";
import { claim, nextDue, setUnclaimed, settleInvitation, takeSlot, type InvitationRow } from "./invitation-store";
import { readInviteSettings, type InviteSettings } from "./invite-settings";
import { sendingTime, zonesOf } from "./quiet-hours";
import { acceptedToday } from "./waves";

/** What a pass did with the invitations it took. */
export type InvitationSummary = Record<"texted" | "refused" | "skipped" | "waiting" | "failed" | "retrying", number> & {
  /** It stopped because its time budget was spent (often waiting for the pace). */
  budgetSpent: boolean;
};

type Step =
  | { kind: "none" }
  | { kind: "pace"; at: number }
  | { kind: "skipped" | "waiting" | "failed" }
  | { kind: "claimed"; row: InvitationRow; token: string };

// Failures in a row after which a pass leaves the workflow alone until the next pass.
const PAUSE_AFTER_FAILURES = 3;

/**
 * Takes the invitation due first, in one transaction: its number's consent
 * checked again (revoked since it was queued: skipped, never sent), and its
 * country (no longer in WAITLIST_PHONE_COUNTRIES: skipped too), its
 * sending hours (outside them: it waits for them to open), then a slot of the
 * pace every instance shares, and only then the claim.
 */
function claimNext(store: Store, env: ServerEnv, settings: InviteSettings, now: number, sent: readonly string[]) {
  return store.db.transaction().execute(async (db): Promise<Step> => {
    const row = await nextDue(db, store.engine, now, sent);
    if (!row) return { kind: "none" };
    const standing = (await consentStandings(db, [row.phone])).get(row.phone);
    if (!standing?.recordId) {
      await setUnclaimed(db, row.id, { state: "skipped", last_failure: `consent ${standing?.state ?? "none"}` });
      return { kind: "skipped" };
    }
    if (!acceptedToday(row.phone, env)) {
      await setUnclaimed(db, row.id, { state: "skipped", last_failure: "country not accepted" });
      return { kind: "skipped" };
    }
    const time = sendingTime(zonesOf(row.phone).zones, now, settings.hours);
    if (!time.open && time.opensAt === undefined) {
      await setUnclaimed(db, row.id, { state: "failed", last_failure: "no sending hours in its time zones" });
      return { kind: "failed" };
    }
    if (!time.open) {
      await setUnclaimed(db, row.id, { state: "waiting", next_attempt_at: time.opensAt! });
      return { kind: "waiting" };
    }
    const paceAt = await takeSlot(db, now, Math.ceil(60_000 / settings.perMinute));
    if (paceAt !== undefined) return { kind: "pace", at: paceAt };
    const token = randomUUID();
    await claim(
      db,
      row.id,
      { token, until: now + env.WEBHOOK_ATTEMPT_TIMEOUT_MS + CLAIM_MARGIN_MS },
      now,
      standing.recordId,
    );
    return { kind: "claimed", row: { ...row, consent_id: standing.recordId }, token };
  });
}

/**
 * What the workflow said: texted ({"texted": true}), or the carrier refused
 * the number ({"texted": false, "code": N}). A 2xx that says neither is no
 * answer: n8n answers 200 with an empty body when an execution dies before
 * its Respond node (a restart, a killed task), so the text may not have gone.
 */
function answerOf(body: string | undefined): { texted: true } | { texted: false; code: string | null } | undefined {
  try {
    const answer = JSON.parse(body ?? "") as { texted?: unknown; code?: unknown } | null;
    if (answer?.texted === true) return { texted: true };
    if (answer?.texted === false)
      return { texted: false, code: answer.code === undefined || answer.code === null ? null : String(answer.code) };
  } catch {
    // Not JSON: no answer.
  }
  return undefined;
}

/** One signed POST of an invitation, under its webhook-id, and what became of it. */
async function send(store: Store, env: ServerEnv, settings: InviteSettings, row: InvitationRow, token: string) {
  const { webhook } = settings;
  const body = JSON.stringify({ phone: row.phone, text: row.text });
  // Claimed before (claimed_at stays once set): sent and answered, or left by an instance that died while sending.
  // Either way the workflow may have texted it.
  const sentBefore = row.claimed_at !== null;
  const result = await postSigned({ ...webhook, url: webhook.url! }, row.id, body, env.WEBHOOK_ATTEMPT_TIMEOUT_MS, {
    readAnswer: true,
    redeliverySince: sentBefore ? row.queued_at : undefined,
  });
  const now = Date.now();
  const answer = result.ok ? answerOf(result.body) : undefined;
  if (answer) {
    const state: InvitationState = answer.texted ? "texted" : "refused";
    await settleInvitation(
      store,
      row,
      token,
      {
        state,
        answered_at: now,
        answer: answer.texted ? "texted" : "texted:false",
        carrier_code: answer.texted ? null : answer.code,
        last_failure: null,
      },
      1,
    );
    return state;
  }
  const rounds = row.rounds + 1;
  const next = nextAttemptAfter(rounds, env.REDELIVERY_SCHEDULE_SECONDS, now);
  // Sent again under its webhook-id: a workflow that did text it answers that it did, and texts nothing.
  const failure = result.ok ? `unconfirmed ${result.status}` : failureOf(result)!;
  await settleInvitation(
    store,
    row,
    token,
    next === undefined
      ? { state: "failed", rounds, last_failure: failure }
      : { state: "queued", rounds, next_attempt_at: next, last_failure: failure },
    1,
  );
  const facts = { webhookId: row.id, wave: row.wave, attempts: row.attempts + 1, reason: failure };
  if (next === undefined) logEvent("error", { event: "invitation_failed", ...facts });
  else logEvent("warn", { event: "invitation_pending", ...facts, nextAttemptAt: new Date(next).toISOString() });
  return next === undefined ? "failed" : "retrying";
}

/**
 * Sends the invitations that are due, one at a time at the shared pace, each
 * claimed first so that no other instance sends it too. Waits for the pace's
 * next slot within `budgetMs`; stops at once when `stopping` says so, and
 * after PAUSE_AFTER_FAILURES failures in a row. Sends nothing while
 * INVITE_WEBHOOK_URL is unset. Run by the schedule (server/schedule) after
 * the leads' redelivery.
 */
export async function invitationPass(
  store: Store,
  env: ServerEnv,
  { budgetMs, stopping = () => false }: { budgetMs: number; stopping?: () => boolean },
): Promise<InvitationSummary> {
  const summary: InvitationSummary = {
    texted: 0,
    refused: 0,
    skipped: 0,
    waiting: 0,
    failed: 0,
    retrying: 0,
    budgetSpent: false,
  };
  const settings = readInviteSettings();
  if (!settings.webhook.url) return summary;
  const began = performance.now();
  const sent: string[] = [];
  let failuresInARow = 0;
  while (!stopping() && failuresInARow < PAUSE_AFTER_FAILURES) {
    const left = budgetMs - (performance.now() - began);
    if (left <= 0) {
      summary.budgetSpent = true;
      break;
    }
    const now = Date.now();
    const step = await claimNext(store, env, settings, now, sent);
    if (step.kind === "none") break;
    if (step.kind === "pace") {
      // The next slot, unless the budget ends first; in short naps, so a stopping server is not kept.
      if (step.at - now > left) {
        summary.budgetSpent = true;
        break;
      }
      await sleep(Math.min(step.at - now, 250));
      continue;
    }
    if (step.kind !== "claimed") {
      summary[step.kind] += 1;
      continue;
    }
    sent.push(step.row.id);
    const state = await send(store, env, settings, step.row, step.token);
    summary[state] += 1;
    failuresInARow = state === "retrying" || state === "failed" ? failuresInARow + 1 : 0;
  }
  await store.durable();
  return summary;
}
