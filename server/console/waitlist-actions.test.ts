import { beforeEach, describe, expect, it } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { insertSession } from "@/server/operators/operator-store";
import { addOperator, commandActor } from "@/server/operators/operators";
import { whereLeads } from "@/tests/support/navigation";
import { cookieJar as jar } from "@/tests/support/request-headers";
import { cookieOf } from "./cookie";
import { searchWaitlist } from "./waitlist-actions";

beforeEach(async () => {
  const store = await database(readEnv());
  const email = `searches-${Date.now()}-${Math.random()}@sous.example`;
  const { operator } = await addOperator(store, { email, role: "viewer", by: commandActor });
  jar.set(cookieOf().name, await insertSession(store, { operatorId: operator.id }));
});

/** Where the search's post leads: the redirect's path. */
async function searched(fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return whereLeads(searchWaitlist(form));
}

describe("the waitlist's search, posted", () => {
  it("keeps the text in the console's cookie, never in the address, and the filters in the address", async () => {
    expect(await searched({ search: "(415) 555-0142", filter: "revoked", invitation: "texted" })).toBe(
      "/console/waitlist?filter=revoked&invitation=texted",
    );
    expect(jar.get(cookieOf("search").name)).toBe("(415) 555-0142");
    expect(await searched({ search: "Ada", filter: "never confirmed" })).toBe(
      "/console/waitlist?filter=never+confirmed",
    );
    expect(await searched({ search: "Ada", invitation: "not invited" })).toBe(
      "/console/waitlist?invitation=not+invited",
    );
    // The defaults, and what no filter is, leave the address bare.
    expect(await searched({ search: "Ada", filter: "all", invitation: "any" })).toBe("/console/waitlist");
    expect(await searched({ search: "Ada", filter: "everyone", invitation: "<script>" })).toBe("/console/waitlist");
    expect(await searched({ search: "Ada" })).toBe("/console/waitlist");
  });

  it("clears the search, and keeps one character past the longest, so the page can say it was too long", async () => {
    await searched({ search: "Ada" });
    expect(await searched({ search: "Ada", clear: "1", invitation: "queued" })).toBe(
      "/console/waitlist?invitation=queued",
    );
    expect(jar.has(cookieOf("search").name)).toBe(false);
    // A post without the field is no search.
    expect(await searched({ filter: "revoked" })).toBe("/console/waitlist?filter=revoked");
    expect(jar.has(cookieOf("search").name)).toBe(false);
    await searched({ search: "x".repeat(10_000) });
    expect(jar.get(cookieOf("search").name)).toHaveLength(101);
  });

  it("answers a browser signed in as no one as an unknown page, and keeps nothing", async () => {
    jar.clear();
    expect(await searched({ search: "(415) 555-0142" })).toBe("404");
    expect(jar.size).toBe(0);
  });
});
