import { afterEach, describe, expect, it, vi } from "vitest";
import { countVisits, recordSource, sourceCounts, sourcesOf, visitOf } from "@/server/forms/source-store";
import { touchOf } from "@/server/web/visits";
import { setupBothEngines } from "@/tests/support/both-engines";
import { conversion, sourcesTable } from "./sources";

const engines = setupBothEngines();
const DAY_MS = 86_400_000;
const now = Date.parse("2026-12-07T12:00:00Z");

afterEach(() => vi.useRealTimers());

describe.each(["sqlite", "postgres"] as const)("the console's sources on %s", (engine) => {
  it("counts visits, sign-ups and quote requests by source, most sign-ups first, each campaign under its source, over the span asked", async () => {
    vi.useFakeTimers({ now, toFake: ["Date"] });
    const store = await engines(engine);
    await store.db.deleteFrom("visits").execute();
    await store.db.deleteFrom("lead_sources").execute();
    const touch = (query: string) => touchOf(new URLSearchParams(query));
    const visit = (query: string, daysAgo: number, views = 1) =>
      countVisits(store, [{ ...visitOf("/", touch(query), now - daysAgo * DAY_MS), views }]);
    let lead = 0;
    const joined = async (form: string, query: string, daysAgo: number) => {
      lead += 1;
      await recordSource(store, { id: `msg_${lead}`, form, at: now - daysAgo * DAY_MS }, touch(query));
    };
    await visit("source=instagram&campaign=spring-launch", 0);
    await visit("source=instagram&campaign=spring-launch", 0, 2);
    await visit("source=instagram&campaign=spring-launch", 6);
    await visit("source=instagram", 1);
    await joined("waitlist", "source=instagram&campaign=spring-launch", 0);
    await joined("waitlist", "source=instagram", 2);
    await visit("source=instagram&campaign=reels", 2, 2);
    await visit("source=newsletter", 0, 2);
    await joined("contact", "source=newsletter", 0);
    await joined("waitlist", "source=direct", 3);
    await joined("waitlist", "source=direct", 5);
    await joined("contact", "source=unknown", 1);
    // Out of the last 7 days (its first is 6 days ago, in UTC): in the last 30.
    await visit("source=www.google.com", 7, 5);
    await joined("waitlist", "source=www.google.com", 8);
    await joined("waitlist", "source=www.google.com", 29);
    await joined("waitlist", "source=www.google.com", 30);

    const rows = (table: Awaited<ReturnType<typeof sourcesTable>>) =>
      table.map(({ source, campaign, visits, signups, quotes, conversion }) =>
        [campaign ? `  ${campaign}` : source, visits, signups, quotes, conversion].join(" "),
      );
    expect(rows(await sourcesTable(store, 7))).toStrictEqual([
      "instagram 7 2 0 28.6%",
      "  spring-launch 4 1 0 25%",
      "  reels 2 0 0 0%",
      "direct 0 2 0 –",
      "newsletter 2 0 1 50%",
      "unknown 0 0 1 –",
    ]);
    expect(rows(await sourcesTable(store, 30))).toStrictEqual([
      "instagram 7 2 0 28.6%",
      "  spring-launch 4 1 0 25%",
      "  reels 2 0 0 0%",
      "www.google.com 5 2 0 40%",
      "direct 0 2 0 –",
      "newsletter 2 0 1 50%",
      "unknown 0 0 1 –",
    ]);
    // A campaign's leads and visits are one count, whether a field was empty or missing.
    const instagram = (await sourceCounts(store, now - 6 * DAY_MS)).filter(({ source }) => source === "instagram");
    expect(instagram.sort((a, b) => a.campaign.localeCompare(b.campaign))).toStrictEqual([
      { source: "instagram", campaign: "", visits: 1, signups: 1, quotes: 0 },
      { source: "instagram", campaign: "reels", visits: 2, signups: 0, quotes: 0 },
      { source: "instagram", campaign: "spring-launch", visits: 4, signups: 1, quotes: 0 },
    ]);
  });

  it("orders sources of as many sign-ups by their visits; no lead asked, none read", async () => {
    vi.useFakeTimers({ now, toFake: ["Date"] });
    const store = await engines(engine);
    await store.db.deleteFrom("visits").execute();
    await store.db.deleteFrom("lead_sources").execute();
    for (const [source, times] of [
      ["one", 1],
      ["three", 3],
      ["two", 2],
    ] as const)
      for (let i = 0; i < times; i += 1)
        await countVisits(store, [visitOf("/", touchOf(new URLSearchParams({ source })), now)]);
    expect((await sourcesTable(store, 7)).map(({ source }) => source)).toStrictEqual(["three", "two", "one"]);
    expect(await sourcesOf(store, [])).toStrictEqual(new Map());
  });
});

describe("conversion", () => {
  it("is sign-ups and quote requests over visits, to a tenth of a percent; none without a visit", () => {
    expect(conversion({ visits: 3, signups: 1, quotes: 0 })).toBe("33.3%");
    expect(conversion({ visits: 8, signups: 1, quotes: 1 })).toBe("25%");
    expect(conversion({ visits: 1, signups: 2, quotes: 0 })).toBe("200%");
    expect(conversion({ visits: 0, signups: 2, quotes: 1 })).toBe("–");
  });
});
