import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { insertSession } from "@/server/operators/operator-store";
import { addOperator, commandActor } from "@/server/operators/operators";
import { cookieOf } from "./cookie";

// The browser's cookies as Next's request scope gives them to a server action, and redirect() as Next throws it.
const jar = new Map<string, string>();
vi.mock("next/headers", () => ({
  cookies: async () => ({
    get: (name: string) => (jar.has(name) ? { name, value: jar.get(name)! } : undefined),
    set: (name: string, value: string, { maxAge }: { maxAge?: number } = {}) =>
      maxAge === 0 ? jar.delete(name) : jar.set(name, value),
  }),
}));
class Redirected extends Error {}
vi.mock("next/navigation", () => ({
  redirect: (to: string) => {
    throw new Redirected(to);
  },
  notFound: () => {
    throw new Redirected("404");
  },
}));

const { searchWaitlist } = await import("./waitlist-actions");

beforeEach(async () => {
  jar.clear();
  const store = await database(readEnv());
  const email = `searches-${Date.now()}-${Math.random()}@sous.example`;
  const { operator } = await addOperator(store, { email, role: "viewer", by: commandActor });
  jar.set(cookieOf().name, await insertSession(store, { operatorId: operator.id }));
});

/** Where the search's post leads: the redirect's path. */
async function searched(fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return searchWaitlist(form).then(
    () => "no redirect",
    (error: Error) => (error instanceof Redirected ? error.message : `not a redirect: ${error.stack}`),
  );
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
