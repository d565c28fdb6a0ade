import { cronRequest } from "@/server/ops/cron-request";

// Read per request: the secret and the database come from the server's env.
export const dynamic = "force-dynamic";
// Vercel stops a function after this many seconds (cronMaxDurationSeconds); Next reads it as written here.
export const maxDuration = 60;

export function GET(request: Request) {
  return cronRequest(request);
}
