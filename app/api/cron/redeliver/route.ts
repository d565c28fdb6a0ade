import { timingSafeEqual } from "node:crypto";
import { readEnv } from "@/server/env";
import { redeliveryPass } from "@/server/leads/redeliver";
import { logEvent } from "@/server/log";

// Read per request: the secret and the store come from the server's env.
export const dynamic = "force-dynamic";

function authorized(header: string | null, secret: string) {
  const [given, expected] = [Buffer.from(header ?? ""), Buffer.from(`Bearer ${secret}`)];
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * One redelivery pass, for hosts where no server process stays up (Vercel):
 * vercel.json's cron calls it with "Authorization: Bearer <CRON_SECRET>".
 * Without CRON_SECRET the route does not exist.
 */
export async function GET(request: Request) {
  const env = readEnv();
  if (!env.CRON_SECRET) return new Response("Not Found", { status: 404 });
  if (!authorized(request.headers.get("authorization"), env.CRON_SECRET)) {
    return new Response("Unauthorized", { status: 401, headers: { "www-authenticate": "Bearer" } });
  }
  const summary = await redeliveryPass(env);
  logEvent("info", { event: "redelivery_pass", via: "cron", ...summary });
  return Response.json(summary, { headers: { "cache-control": "no-store" } });
}
