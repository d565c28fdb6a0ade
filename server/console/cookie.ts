import { siteUrl } from "@/server/site-settings";

// On https the `__Host-` prefix with `Secure`; on http://localhost, where a browser keeps no `Secure` cookie, a plain
// name. `HttpOnly` and `SameSite=Strict` always: no script reads it, no other site's page or form sends it.
export function cookieOf(kind: "session" | "ceremony" | "search" | "enrolment" = "session") {
  const secure = siteUrl().protocol === "https:";
  const base = {
    session: "sous-console",
    ceremony: "sous-ceremony",
    search: "sous-search",
    enrolment: "sous-enrolment",
  }[kind];
  return {
    name: secure ? `__Host-${base}` : base,
    attributes: { httpOnly: true, secure, sameSite: "strict" as const, path: "/" },
  };
}

/** A token as newToken makes them (32 random bytes, base64url): anything else is not looked up. */
export const isSessionToken = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value);

/**
 * Where sign-in returns to: a path of the console, never a URL (no open
 * redirect); the overview for anything else.
 */
export function consolePath(path: string | undefined | null) {
  if (!path || path.length > 300) return "/console";
  return /^\/console(?:[/?][A-Za-z0-9\-._~/?=&%]*)?$/.test(path) && !/\/\/|\.\./.test(path) ? path : "/console";
}
