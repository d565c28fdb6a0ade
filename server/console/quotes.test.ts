import { describe, expect, it, vi } from "vitest";
import { insertLead } from "@/server/outbox/outbox-store";
import { commandActor } from "@/server/operators/operators";
import { setupBothEngines } from "@/tests/support/both-engines";
import { waitlistLead } from "@/tests/support/waitlist-lead";
import { markHandled, maskedEmail, quoteRequests } from "./quotes";

const engines = setupBothEngines();
const DAY_MS = 86_400_000;

describe.each(["sqlite", "postgres"] as const)("the console's quote requests on %s", (engine) => {
  it("show every kept request newest first, held, failing or delivered, in words, with until when it is kept", async () => {
    vi.stubEnv("LEAD_RETENTION_DAYS", "30");
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    const request = (name: string, overrides: Parameters<typeof waitlistLead>[1]) =>
      insertLead(
        store,
        waitlistLead("+12125550000", {
          receiver: "contact",
          payload: JSON.stringify({
            name,
            email: `${name}@example.com`,
            clientCount: "1-5",
            message: `Hi from ${name}`,
          }),
          ...overrides,
        }),
      );
    await request("held", { state: "held", created_at: 4_000 });
    await request("retrying", { state: "pending", created_at: 3_000 });
    await request("dead", { state: "dead", created_at: 2_000 });
    await request("delivered", { state: "delivered", created_at: 1_000, delivered_at: 1_500 });
    await request("forgotten", { state: "delivered", created_at: 500, delivered_at: 600, payload: null });
    await insertLead(store, waitlistLead("+12125550001", { state: "held", created_at: 5_000 }));

    const quotes = await quoteRequests(store);
    expect(quotes.map(({ values, state, keptUntil }) => [values.name, state, keptUntil])).toStrictEqual([
      ["held", "waiting: no workflow connected", null],
      ["retrying", "retrying", null],
      ["dead", "gave up", null],
      ["delivered", "delivered", 1_500 + 30 * DAY_MS],
    ]);
    expect(quotes[0]!.values).toStrictEqual({
      name: "held",
      email: "held@example.com",
      clientCount: "1-5",
      message: "Hi from held",
    });
    expect(quotes.every(({ handledAt }) => handledAt === null)).toBe(true);
  });

  it("are marked handled by an owner once, in the activity log; nothing else is", async () => {
    const store = await engines(engine);
    await store.db.deleteFrom("outbox").execute();
    await store.db.deleteFrom("operator_activity").execute();
    const kept = await insertLead(
      store,
      waitlistLead("+12125550000", { receiver: "contact", payload: JSON.stringify({ name: "Ada" }) }),
    );
    const signup = await insertLead(store, waitlistLead("+12125550002", {}));
    const forgotten = await insertLead(
      store,
      waitlistLead("+12125550003", { receiver: "contact", state: "delivered", payload: null }),
    );
    expect(await markHandled(store, { id: kept!.id, by: commandActor })).toBe(true);
    expect(await markHandled(store, { id: kept!.id, by: commandActor })).toBe(true);
    for (const id of [signup!.id, forgotten!.id, "msg_none"])
      expect(await markHandled(store, { id, by: commandActor }), id).toBe(false);
    const lines = await store.db.selectFrom("operator_activity").select(["action", "subject", "rows"]).execute();
    expect(lines).toStrictEqual([{ action: "handled", subject: kept!.id, rows: 1 }]);
    const [quote] = await quoteRequests(store);
    expect(quote).toMatchObject({ id: kept!.id, handledAt: expect.any(Number) });
  });
});

describe("maskedEmail", () => {
  it("keeps the first letter and the domain", () => {
    expect(maskedEmail("ada@example.com")).toBe("a•••@example.com");
    expect(maskedEmail("@example.com")).toBe("•••");
    expect(maskedEmail("nobody")).toBe("•••");
  });
});
