import "server-only";
import type { Store } from "@/server/db/connect";
import { consentForms, formNames } from "@/lib/forms";
import { INVITATIONS, invitationsConfigured, type ServerEnv } from "@/server/env";
import { failingReceivers } from "@/server/outbox/alert-store";
import { openCounts } from "@/server/outbox/outbox-store";

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** A form's leads in the founder's words; a form added later reads as its name. */
const wordsOf = (form: string) =>
  ({
    waitlist: { sent: "Welcome texts are", item: "sign-up" },
    contact: { sent: "Quote requests are", item: "quote request" },
  })[form] ?? { sent: `${form} leads are`, item: `${form} lead` };

/**
 * What keeps chefs from being reached, a plain sentence each, at the top of every console page: a form with no
 * workflow connected, a workflow failing, invitations not configured, alerts off. None while all is well.
 */
export async function unreached(store: Store, env: ServerEnv): Promise<string[]> {
  const counts = await openCounts(store);
  const waiting = (form: string) => {
    const of = counts.get(form);
    return of ? of.pending.count + of.held.count + of.dead.count + of.decision.count : 0;
  };
  const sentences: string[] = [];
  // The forms that text first: a welcome not sent is the first thing a founder must hear.
  const texts = (form: string) => consentForms.some((one) => one.form === form);
  const forms = formNames.toSorted((a, b) => Number(texts(b)) - Number(texts(a)));
  for (const form of forms) {
    if (env.webhooks[form].url) continue;
    const { sent, item } = wordsOf(form);
    const count = waiting(form);
    const wait = count === 1 ? "waits" : "wait";
    sentences.push(`${sent} not being sent: no workflow is connected for them, and ${plural(count, item)} ${wait}.`);
  }
  for (const { form, since } of await failingReceivers(store)) {
    const count = form === INVITATIONS ? (counts.get(form)?.pending.count ?? 0) : waiting(form);
    if (count) sentences.push(`The ${form} workflow is failing since ${utc(since)}: ${count} to send again.`);
  }
  if (!invitationsConfigured(env)) sentences.push("Invitations are not configured: no wave can be sent yet.");
  if (!env.ALERT_WEBHOOK_URL) sentences.push("Alerts are off: nobody is told when deliveries fail.");
  return sentences;
}
