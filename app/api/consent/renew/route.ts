import { after } from "next/server";
import { renewRequest } from "@/server/consent/workflow-calls";
import { scheduleTick } from "@/server/ops/scheduler";

// Read per request: the secret and the database come from the server's env.
export const dynamic = "force-dynamic";

export function POST(request: Request) {
  // The sign-up that waited for this START goes out now, after the answer, not at the timer's next tick.
  return renewRequest(request, () => after(() => scheduleTick()));
}
