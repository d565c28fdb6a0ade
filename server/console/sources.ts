import "server-only";
import type { Store } from "@/server/db/connect";
import { sourceCounts, type SourceCount } from "@/server/forms/source-store";

export const sourceSpans = [7, 30, 90] as const;
const DAY_MS = 86_400_000;

/** A source's row, or (with `campaign`) one of its campaigns' rows under it. */
export type SourceRow = Omit<SourceCount, "campaign"> & { campaign?: string; conversion: string };

/** Sign-ups and quote requests over visits, as a share; none without a visit. */
export const conversion = ({ visits, signups, quotes }: Pick<SourceCount, "visits" | "signups" | "quotes">) =>
  visits ? `${Math.round(((signups + quotes) / visits) * 1000) / 10}%` : "–";

const bySignups = (a: SourceCount, b: SourceCount) =>
  b.signups - a.signups ||
  b.visits - a.visits ||
  a.source.localeCompare(b.source) ||
  a.campaign.localeCompare(b.campaign);

/** The last `days` days (UTC), by source, most sign-ups first, each source's campaigns under it. */
export async function sourcesTable(store: Store, days: number): Promise<SourceRow[]> {
  const counts = await sourceCounts(store, Date.now() - (days - 1) * DAY_MS);
  const totals = new Map<string, SourceCount>();
  for (const { source, visits, signups, quotes } of counts) {
    const total = totals.get(source) ?? { source, campaign: "", visits: 0, signups: 0, quotes: 0 };
    totals.set(source, {
      ...total,
      visits: total.visits + visits,
      signups: total.signups + signups,
      quotes: total.quotes + quotes,
    });
  }
  const row = ({ campaign, ...count }: SourceCount) => ({
    ...count,
    ...(campaign ? { campaign } : {}),
    conversion: conversion(count),
  });
  return [...totals.values()].sort(bySignups).flatMap((total) => [
    row(total),
    ...counts
      .filter((count) => count.source === total.source && count.campaign)
      .sort(bySignups)
      .map(row),
  ]);
}
