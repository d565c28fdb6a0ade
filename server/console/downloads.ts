import "server-only";
import type { Store } from "@/server/db/connect";
import { leadStates } from "@/server/db/schema";
import { toCsv } from "@/server/console/csv";
import { consentExport, invitationExport, leadExport, leftOutOf, recordExport } from "@/server/console/exports";
import { consoleActor, type SignedIn } from "@/server/operators/operators";

/** The console's downloads, each what the matching command exports (server/console/exports.ts), as CSV. */
export const downloads = {
  waitlist: {
    label: "The waitlist: each number once, with its latest sign-up and its consent",
    kind: "waitlist leads",
    make: (store: Store) => leadExport(store, { form: "waitlist", states: [...leadStates] }),
    leftOut: (store: Store) => leftOutOf(store, "waitlist"),
  },
  quotes: {
    label: "The quote requests, with every value they keep",
    kind: "quote requests",
    make: (store: Store) => leadExport(store, { form: "contact", states: [...leadStates] }),
    leftOut: (store: Store) => leftOutOf(store, "contact"),
  },
  consents: {
    label: "The consent records, revocations and STARTs, with the text each chef saw",
    kind: "consent records",
    make: (store: Store) => consentExport(store),
  },
  invitations: {
    label: "The launch invitations, every wave",
    kind: "invitations",
    make: (store: Store) => invitationExport(store),
  },
} as const;
export type DownloadName = keyof typeof downloads;

export const isDownload = (name: string): name is DownloadName => Object.hasOwn(downloads, name);

/** One download as a CSV file, and its line in the activity log. */
export async function download(signed: SignedIn, name: DownloadName) {
  const { kind, make } = downloads[name];
  const made = await make(signed.store);
  await recordExport(signed.store, { by: consoleActor(signed), kind, rows: made.rows.length });
  return new Response(toCsv(made.columns, made.rows), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="sous-${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}
