import { revokeRequest } from "@/server/consent/workflow-calls";

// Read per request: the secret and the database come from the server's env.
export const dynamic = "force-dynamic";

export function POST(request: Request) {
  return revokeRequest(request);
}
