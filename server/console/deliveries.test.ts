import { describe, expect, it } from "vitest";
import { insertLead } from "@/server/outbox/outbox-store";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { deliveries, KEPT_SHOWN, WAITING_SHOWN } from "./deliveries";

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
