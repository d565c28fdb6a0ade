import { describe, expect, it, vi } from "vitest";
import { consolePath, cookieOf, isSessionToken } from "./cookie";
import { newToken } from "@/server/operators/operator-store";

describe("the console's cookies", () => {
  it("on https: the __Host- prefix, Secure, HttpOnly, SameSite=Strict, the whole site's path", () => {
    vi.stubEnv("SITE_URL", "https://sous.example");
    expect(cookieOf("session")).toStrictEqual({
      name: "__Host-sous-console",
      attributes: { httpOnly: true, secure: true, sameSite: "strict", path: "/" },
    });
    expect(cookieOf("ceremony").name).toBe("__Host-sous-ceremony");
  });

  it("on http://localhost: a plain name, not Secure, HttpOnly and Strict all the same", () => {
    vi.stubEnv("SITE_URL", "http://localhost:3000");
    expect(cookieOf("session")).toStrictEqual({
      name: "sous-console",
      attributes: { httpOnly: true, secure: false, sameSite: "strict", path: "/" },
    });
    expect(cookieOf("ceremony").name).toBe("sous-ceremony");
  });

  it("looks up only a token as the console makes them", () => {
    expect(isSessionToken(newToken())).toBe(true);
    for (const value of [undefined, "", "x".repeat(42), "x".repeat(44), `${"x".repeat(42)}=`, `${"x".repeat(42)}/`])
      expect(isSessionToken(value), String(value)).toBe(false);
  });
});

describe("where sign-in returns to", () => {
  it("a path of the console, with its query", () => {
    for (const path of ["/console", "/console/waitlist", "/console/waitlist?page=2&state=revoked", "/console?days=30"])
      expect(consolePath(path), path).toBe(path);
  });

  it("the overview for anything else: another site, another page, a protocol-relative URL, a climb out", () => {
    for (const path of [
      undefined,
      null,
      "",
      "https://evil.example/console",
      // No `//`, yet a host to a browser on another scheme: "https:/console" is https://console/ from an http page.
      "https:/console",
      "javascript:/console",
      "//evil.example/console",
      "/console//evil.example",
      "/consoles",
      "/",
      "/signup",
      "/console/../signup",
      "/console\\evil",
      "/console/<script>",
      `/console/${"a".repeat(300)}`,
    ])
      expect(consolePath(path), String(path)).toBe("/console");
  });
});
