import "server-only";
import type { Store } from "@/server/db/connect";
import { consentForms, formNames } from "@/lib/forms";
import { INVITATIONS, invitationsConfigured, siteAddressSet, webhookVariables } from "@/server/env";
import type { Receiver, ServerEnv } from "@/server/env";
import { failingReceivers } from "@/server/outbox/alert-store";
import { openCounts } from "@/server/outbox/outbox-store";

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** A form's leads in the founder's words; a form added later reads as its name. */
const wordsOf = (form: string) =>
  ({
    waitlist: { sent: "Welcome texts are", item: "sign-up", title: "Welcome texts" },
    contact: { sent: "Quote requests are", item: "quote request", title: "Quote requests" },
  })[form] ?? { sent: `${form} leads are`, item: `${form} lead`, title: `${form} leads` };

// The forms that text first: a welcome not sent is the first thing a founder must hear.
const textsFirst = () => {
  const texts = (form: string) => consentForms.some((one) => one.form === form);
  return formNames.toSorted((a, b) => Number(texts(b)) - Number(texts(a)));
};

/** A warning, and the section of the Settings page that names what to set, when a setting is the cure. */
export type Warning = { text: string; settings?: string };

/**
 * What keeps chefs from being reached, a plain sentence each, at the top of every console page: a form with no workflow
 * connected, a workflow failing, invitations not configured, alerts off. None while all is well.
 */
export async function unreached(store: Store, env: ServerEnv): Promise<Warning[]> {
  const counts = await openCounts(store);
  const waiting = (form: string) => {
    const of = counts.get(form);
    return of ? of.pending.count + of.held.count + of.dead.count + of.decision.count : 0;
  };
  const warnings: Warning[] = [];
  for (const form of textsFirst()) {
    if (env.webhooks[form].url) continue;
    const { sent, item } = wordsOf(form);
    const count = waiting(form);
    const wait = count === 1 ? "waits" : "wait";
    const text = `${sent} not being sent: no workflow is connected for them, and ${plural(count, item)} ${wait}.`;
    warnings.push({ text, settings: form });
  }
  for (const { form, since } of await failingReceivers(store)) {
    const count = form === INVITATIONS ? (counts.get(form)?.pending.count ?? 0) : waiting(form);
    if (count) warnings.push({ text: `The ${form} workflow is failing since ${utc(since)}: ${count} to send again.` });
  }
  if (!invitationsConfigured(env))
    warnings.push({ text: "Invitations are not configured: no wave can be sent yet.", settings: INVITATIONS });
  if (!env.ALERT_WEBHOOK_URL)
    warnings.push({ text: "Alerts are off: nobody is told when deliveries fail.", settings: "alerts" });
  return warnings;
}

type Setting = { name: string; what: string; set: boolean };
const setting = (name: string, what: string, set: unknown): Setting => ({ name, what, set: Boolean(set) });

/** The settings an owner sets for the warnings above, by section, with whether each is set (never its value). */
export function ownerSettings(env: ServerEnv): { id: string; title: string; settings: Setting[] }[] {
  const webhook = (receiver: Receiver) => {
    const names = webhookVariables(receiver);
    const { url, secrets, auth } = env.webhooks[receiver];
    return [
      setting(names.url, `The ${receiver} workflow's webhook address, from n8n, Zapier or Make.`, url),
      setting(
        names.secrets,
        `Signs each delivery for the workflow to check (or a fixed header: ${names.auth}).`,
        secrets?.length || auth,
      ),
    ];
  };
  return [
    ...textsFirst().map((form) => ({ id: form, title: wordsOf(form).title, settings: webhook(form) })),
    {
      id: INVITATIONS,
      title: "Launch invitations",
      settings: [
        ...webhook(INVITATIONS),
        setting("INVITE_URL", "Where an invitation's link leads: https, on your own domain.", env.invite.link),
        setting(
          "SITE_URL",
          "This site's public address (on Vercel, its production domain serves).",
          siteAddressSet(env),
        ),
      ],
    },
    {
      id: "alerts",
      title: "Alerts",
      settings: [
        setting(
          "ALERT_WEBHOOK_URL",
          "A Slack, Discord or n8n webhook told when deliveries fail.",
          env.ALERT_WEBHOOK_URL,
        ),
      ],
    },
  ];
}
