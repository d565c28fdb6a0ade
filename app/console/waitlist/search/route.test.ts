import { beforeEach, describe, expect, it } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { insertSession } from "@/server/operators/operator-store";
import { addOperator, commandActor } from "@/server/operators/operators";
import { cookieOf } from "@/server/console/cookie";
import { POST } from "./route";

let session = "";
beforeEach(async () => {
  const store = await database(readEnv());
  const email = `searches-${Date.now()}-${Math.random()}@sous.example`;
  const { operator } = await addOperator(store, { email, role: "viewer", by: commandActor });
  session = `${cookieOf().name}=${await insertSession(store, { operatorId: operator.id })}`;
});

/** The search posted as the page's plain form posts it: where it leads, and the search cookie it sets. */
async function searched(fields: Record<string, string>, cookie = session) {
  const answer = await POST(
    new Request("http://localhost:3000/console/waitlist/search", {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:3000", cookie },
    }),
  );
  const set = answer.headers.getSetCookie().find((line) => line.startsWith(`${cookieOf("search").name}=`));
  return { status: answer.status, to: answer.headers.get("location"), cookie: set };
}

const valueOf = (cookie: string | undefined) => decodeURIComponent(/^[^=]+=([^;]*)/.exec(cookie ?? "")?.[1] ?? "");

describe("the waitlist's search, posted", () => {
  it("keeps the text in the console's cookie (HttpOnly, Strict, an hour), never in the address, and the filters in the address", async () => {
    const first = await searched({ search: "(415) 555-0142", filter: "revoked", invitation: "texted" });
    expect(first).toMatchObject({ status: 303, to: "/console/waitlist?filter=revoked&invitation=texted" });
    expect(valueOf(first.cookie)).toBe("(415) 555-0142");
    expect(first.cookie).toMatch(/Max-Age=3600/);
    expect(first.cookie).toMatch(/HttpOnly/);
    expect(first.cookie).toMatch(/SameSite=strict/i);
    expect((await searched({ search: "Ada", filter: "never confirmed" })).to).toBe(
      "/console/waitlist?filter=never+confirmed",
    );
    expect((await searched({ search: "Ada", invitation: "not invited" })).to).toBe(
      "/console/waitlist?invitation=not+invited",
    );
    // The defaults, and what no filter is, leave the address bare.
    for (const fields of <Array<Record<string, string>>>[
      { search: "Ada", filter: "all", invitation: "any" },
      { search: "Ada", filter: "everyone", invitation: "<script>" },
      { search: "Ada" },
    ])
      expect((await searched(fields)).to, JSON.stringify(fields)).toBe("/console/waitlist");
  });

  it("clears the search, and keeps one character past the longest, so the page can say it was too long", async () => {
    const cleared = await searched({ search: "Ada", clear: "1", invitation: "queued" });
    expect(cleared.to).toBe("/console/waitlist?invitation=queued");
    expect(cleared.cookie).toMatch(/Max-Age=0/);
    // A post without the field is no search.
    expect((await searched({ filter: "revoked" })).cookie).toMatch(/Max-Age=0/);
    expect(valueOf((await searched({ search: "x".repeat(10_000) })).cookie)).toHaveLength(101);
  });

  it("answers a browser signed in as no one as an unknown page, and keeps nothing", async () => {
    const stranger = await searched({ search: "(415) 555-0142" }, "");
    expect(stranger).toMatchObject({ status: 404, cookie: undefined });
  });
});
