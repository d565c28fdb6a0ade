import "server-only";
import { timingSafeEqual } from "node:crypto";

/** Whether an Authorization header is "Bearer <secret>", compared in constant time. */
export function bearerMatches(header: string | null, secret: string) {
  const [given, expected] = [Buffer.from(header ?? ""), Buffer.from(`Bearer ${secret}`)];
  return given.length === expected.length && timingSafeEqual(given, expected);
}
