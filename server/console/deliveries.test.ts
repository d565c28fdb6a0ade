import { describe, expect, it } from "vitest";
import { insertLead } from "@/server/outbox/outbox-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { deliveries, groupIds, groupKey, groupOf, groupWords, KEPT_SHOWN, WAITING_SHOWN } from "./deliveries";

const engines = setupBothEngines();

describe.each(["sqlite", "postgres"] as const)("the console's deliveries on %s", (engine) => {
  it("show the oldest waiting leads and the newest kept contact requests, each with how many there are in all", async () => {
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    const states = ["pending", "held", "dead"] as const;
    // More waiting than the page shows, in every open state, and one delivered: not waiting.
    for (let i = 0; i < WAITING_SHOWN + 5; i += 1)
      await insertLead(
        store,
        waitlistLead(`+1212555${String(1000 + i)}`, { state: states[i % 3], created_at: 10_000 + i }),
      );
    await insertLead(store, waitlistLead("+12125559999", { state: "delivered", created_at: 1 }));
    // Kept contact requests: more than shown; one whose values retention emptied; a delivered sign-up (not a contact request).
    const contact = (i: number, payload: string | null) =>
      waitlistLead("+12125550000", { receiver: "contact", state: "delivered", created_at: 50_000 + i, payload });
    for (let i = 0; i < KEPT_SHOWN + 2; i += 1)
      await insertLead(store, contact(i, JSON.stringify({ name: `Guest ${i}`, email: `g${i}@example.com` })));
    await insertLead(store, contact(999, null));

    const seen = await deliveries(store);
    expect(seen.waitingCount).toBe(WAITING_SHOWN + 5);
    expect(seen.open).toHaveLength(WAITING_SHOWN);
    expect(seen.open.map(({ lead }) => lead.created_at)).toStrictEqual(
      Array.from({ length: WAITING_SHOWN }, (_, i) => 10_000 + i),
    );
    expect(seen.open[0]!.attempts).toStrictEqual([]);
    expect(seen.keptCount).toBe(KEPT_SHOWN + 2);
    expect(seen.kept).toHaveLength(KEPT_SHOWN);
    expect(seen.kept[0]!.values).toStrictEqual({
      name: `Guest ${KEPT_SHOWN + 1}`,
      email: `g${KEPT_SHOWN + 1}@example.com`,
    });
    expect(seen.kept.at(-1)!.values.name).toBe("Guest 2");
  });
});

const HOUR = 3_600_000;
const at = Date.parse("2026-12-07T14:00:00Z");

describe("a group of sign-ups past the day's budget", () => {
  it("is what they share: the number's first seven digits and the UTC hour they came", () => {
    const lead = (phone: string, created_at: number) => waitlistLead(phone, { created_at });
    expect(groupOf(lead("+14155550101", at + 59 * 60_000))).toBe(`1415555-${at}`);
    expect(groupOf(lead("+14155559999", at))).toBe(`1415555-${at}`);
    expect(groupOf(lead("+14155560101", at))).toBe(`1415556-${at}`);
    expect(groupOf(lead("+14155550101", at + HOUR))).toBe(`1415555-${at + HOUR}`);
    expect(groupOf({ payload: null, created_at: at })).toBe(`-${at}`);
    for (const key of [`1415555-${at}`, `-${at}`]) expect(groupKey.test(key), key).toBe(true);
    for (const key of ["14155550-1", "1415555-", "x-1", `1415555-${at}-1`, ` 1415555-${at}`])
      expect(groupKey.test(key), key).toBe(false);
  });

  it("is named by its area code and exchange (+1) or its first digits, and its hour", () => {
    expect(groupWords(`1415555-${at}`)).toStrictEqual({ prefix: "+1 415-555", hour: "2026-12-07 14:00 UTC" });
    expect(groupWords(`4477009-${at}`)).toStrictEqual({ prefix: "+4477009", hour: "2026-12-07 14:00 UTC" });
    expect(groupWords(`-${at}`).prefix).toBe("no number");
  });
});

describe.each(["sqlite", "postgres"] as const)("the sign-ups waiting for an owner on %s", (engine) => {
  it("are grouped oldest first, each group with its sign-ups, and counted; a group's ids are those still waiting", async () => {
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    const waiting = (phone: string, created_at: number) =>
      insertLead(store, waitlistLead(phone, { state: "awaiting_release", created_at }));
    const a = await waiting("+14155550101", at);
    const b = await waiting("+12125550101", at + 1);
    const c = await waiting("+14155550102", at + 2);
    await waiting("+14155550103", at + HOUR);
    await insertLead(store, waitlistLead("+14155550104", { state: "pending", created_at: at + 3 }));

    const seen = await deliveries(store);
    expect(seen.awaitingCount).toBe(4);
    expect(
      seen.groups.map(({ key, prefix, hour, leads }) => [key, prefix, hour, leads.map(({ id }) => id)]),
    ).toStrictEqual([
      [`1415555-${at}`, "+1 415-555", "2026-12-07 14:00 UTC", [a!.id, c!.id]],
      [`1212555-${at}`, "+1 212-555", "2026-12-07 14:00 UTC", [b!.id]],
      [`1415555-${at + HOUR}`, "+1 415-555", "2026-12-07 15:00 UTC", [expect.any(String)]],
    ]);
    expect(seen.open.map(({ lead }) => lead.state)).toStrictEqual(["pending"]);
    expect(await groupIds(store, `1415555-${at}`)).toStrictEqual([a!.id, c!.id]);
    expect(await groupIds(store, `1415555-${at - HOUR}`)).toStrictEqual([]);
  });
});
