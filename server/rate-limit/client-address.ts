/**
 * The visitor's address as the nearest trusted proxy saw it. Each proxy in
 * front of the app appends the address it received the request from to
 * X-Forwarded-For, so the entry `trustedHops` from the right was written by a
 * proxy we trust; anything to its left came from the client and could be made
 * up. One hop matches Vercel, nginx's $proxy_add_x_forwarded_for and `next
 * start` (which fills the header only when it is absent).
 */
export function clientAddress(forwardedFor: string | null, trustedHops: number) {
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries[entries.length - trustedHops] ?? entries[0] ?? "unknown";
}
