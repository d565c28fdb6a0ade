import "server-only";
import { consentForms } from "@/lib/forms";
import { leadsWithConsent, linkUnrecordedLead } from "@/server/consent/consent-store";
import type { Store } from "@/server/db/connect";
import { openLeadsOf } from "@/server/leads/lead-store";
import { logEvent } from "@/server/log";

/** The number a lead texts, read from its values once (JSON, not a text search); undefined when it has none. */
function phoneIn(payload: string | null, phoneKey: string) {
  try {
    const phone = (JSON.parse(payload ?? "null") as Record<string, unknown> | null)?.[phoneKey];
    return typeof phone === "string" ? phone : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A revocation finds a number's leads by the consent records that name them.
 * A lead kept before consent records existed (or imported from the stores
 * before the database) has none: once, at start, each such lead still open
 * gets a row that ties it to its number, evidence of nothing (see
 * linkUnrecordedLead). A start with nothing to tie does one query per form.
 */
export async function linkUnrecordedLeads(store: Store) {
  let linked = 0;
  for (const { form, phoneKey } of consentForms) {
    const open = await openLeadsOf(store, [form]);
    if (!open.length) continue;
    const named = await leadsWithConsent(
      store,
      open.map((lead) => lead.id),
    );
    for (const lead of open.filter((row) => !named.has(row.id))) {
      const phone = phoneIn(lead.payload, phoneKey);
      if (!phone) continue;
      await linkUnrecordedLead(store, { phone, leadId: lead.id, at: Number(lead.created_at) });
      linked += 1;
    }
  }
  if (linked) logEvent("info", { event: "consent_links_backfilled", leads: linked });
  return linked;
}
