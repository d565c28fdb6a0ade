import { expect, test } from "./fixtures";

test("/api/health answers an uptime monitor: 200 {status: ok}, never cached, no figures without the token", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(response.headers()["cache-control"]).toBe("no-store");
  expect(await response.json()).toStrictEqual({ status: "ok" });
  const guessed = await request.get("/api/health", { headers: { authorization: "Bearer a-guess-of-at-least-16-chars" } });
  expect(await guessed.json()).toStrictEqual({ status: "ok" });
});
