import { healthRequest } from "@/server/ops/health-request";

// Read per request: a monitor wants now, not a cached answer.
export const dynamic = "force-dynamic";

export function GET(request: Request) {
  return healthRequest(request);
}
