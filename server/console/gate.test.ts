import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "@/server/db/connect";
import { readEnv } from "@/server/env";
import { insertSession } from "@/server/operators/operator-store";
import { addOperator, commandActor, removeOperator } from "@/server/operators/operators";
import { CONSOLE_ACTION_BYTES } from "@/server/web/request-bodies.mjs";
import { formFields, gate, sessionTokenOf } from "./action-guard";

// The app's own address in the unit tests' env: http://localhost:3000 (site-settings), the cookie's plain name.
const site = "http://localhost:3000";
const cookie = "sous-console";

beforeEach(() => {
  for (const method of ["info", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation(() => {});
});

let counter = 0;
/** An operator of the role, signed in: their session's token. */
async function signedIn(role: "owner" | "viewer") {
  const store = await database(readEnv());
  counter += 1;
  const email = `${role}-${counter}-${Date.now()}@sous.example`;
  const { operator } = await addOperator(store, { email, role, by: commandActor });
  return { email, token: await insertSession(store, { operatorId: operator.id }) };
}

const post = (headers: Record<string, string>, method = "POST") =>
  new Request(`${site}/console/deliveries/drop`, { method, headers, body: method === "POST" ? "id=x" : null });

const logged = () =>
  vi
    .mocked(console.warn)
    .mock.calls.map((call) => JSON.parse(String(call[0])))
    .filter((line) => line.event === "console_action_refused");

describe("the console's gate, in the handler itself", () => {
  it("lets an owner's own post through, with who they are", async () => {
    const { email, token } = await signedIn("owner");
    const checked = await gate(post({ origin: site, cookie: `other=1; ${cookie}=${token}` }), {
      action: "drop",
      role: "owner",
    });
    expect(checked.ok && checked.signed.operator.email).toBe(email);
    expect(logged()).toStrictEqual([]);
  });

  it("refuses, saying why in the log and to whom nothing: another site 403, no session 404, a viewer 403", async () => {
    const owner = await signedIn("owner");
    const viewer = await signedIn("viewer");
    const status = async (request: Request, role: "owner" | "viewer" = "owner") => {
      const checked = await gate(request, { action: "drop", role });
      return checked.ok ? 200 : checked.answer.status;
    };
    expect(await status(post({ origin: "https://evil.example", cookie: `${cookie}=${owner.token}` }))).toBe(403);
    expect(await status(post({ cookie: `${cookie}=${owner.token}` }))).toBe(403);
    expect(await status(post({ origin: site }))).toBe(404);
    expect(await status(post({ origin: site, cookie: `${cookie}=not-a-token` }))).toBe(404);
    expect(await status(post({ origin: site, cookie: `x${cookie}=${owner.token}` }))).toBe(404);
    expect(await status(post({ origin: site, cookie: `${cookie}=${viewer.token}` }))).toBe(403);
    // A viewer's own read, and a download asked without an Origin (a GET carries none): through.
    expect(await status(post({ origin: site, cookie: `${cookie}=${viewer.token}` }), "viewer")).toBe(200);
    expect(await status(post({ cookie: `${cookie}=${owner.token}` }, "GET"))).toBe(200);
    expect(logged().map(({ reason, status }) => `${reason} ${status}`)).toStrictEqual([
      "origin 403",
      "origin 403",
      "no session 404",
      "no session 404",
      "no session 404",
      "role 403",
    ]);
    const answer = await gate(post({ origin: site, cookie: `${cookie}=${viewer.token}` }), {
      action: "drop",
      role: "owner",
    });
    expect(answer.ok ? "" : await answer.answer.text()).toContain(
      '<p>Only an owner can do this. Nothing was changed.</p><p><a href="/console">Back to the console</a></p>',
    );
    // Each refusal in words, as a page with a way back.
    const answers = [
      post({ origin: "https://evil.example", cookie: `${cookie}=${owner.token}` }),
      post({ origin: site }),
      post({ origin: site, cookie: `${cookie}=${viewer.token}` }),
    ];
    const refused = [];
    for (const request of answers) {
      const checked = await gate(request, { action: "drop", role: "owner" });
      if (checked.ok) throw new Error("let through");
      const page = await checked.answer.text();
      refused.push([checked.answer.headers.get("content-type"), /<p>([^<]+)<\/p>/.exec(page)?.[1]]);
    }
    expect(refused).toStrictEqual([
      [
        "text/html; charset=utf-8",
        "Refused: this request did not come from the console's own pages. Nothing was changed.",
      ],
      ["text/html; charset=utf-8", "Not found."],
      ["text/html; charset=utf-8", "Only an owner can do this. Nothing was changed."],
    ]);
  });

  it("ends with the operator: a removed operator's session is no session", async () => {
    const { email, token } = await signedIn("viewer");
    await removeOperator(await database(readEnv()), { email, by: commandActor });
    const checked = await gate(post({ origin: site, cookie: `${cookie}=${token}` }), { action: "drop", role: "owner" });
    expect(checked.ok ? 200 : checked.answer.status).toBe(404);
  });
});

describe("the session cookie in a Cookie header", () => {
  it("is read by its exact name, among others, spaces trimmed", () => {
    const of = (value: string) => sessionTokenOf(new Headers({ cookie: value }));
    expect(of(`${cookie}=abc`)).toBe("abc");
    expect(of(`a=1;  ${cookie}=abc ; b=2`)).toBe("abc");
    expect(of(`${cookie}x=abc; x${cookie}=def`)).toBeUndefined();
    expect(of("")).toBeUndefined();
    expect(of(cookie)).toBeUndefined();
    expect(of(`${cookie}x`)).toBeUndefined();
    expect(sessionTokenOf(new Headers())).toBeUndefined();
  });
});

describe("a console form's fields", () => {
  const form = (body: string) => new Request(`${site}/console/deliveries/drop`, { method: "POST", body });
  it("are what a plain form posts, and none for a post over the console's limit", async () => {
    expect([...(await formFields(form("id=msg_1&confirm=yes")))]).toStrictEqual([
      ["id", "msg_1"],
      ["confirm", "yes"],
    ]);
    expect([...(await formFields(form(`id=${"x".repeat(CONSOLE_ACTION_BYTES)}`)))]).toStrictEqual([]);
  });
});
