import { openInvitation } from "@/server/invitations/opens";

// Read per request: each open is recorded.
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ code: string }> };

export async function GET(request: Request, { params }: Context) {
  return openInvitation(request, (await params).code);
}

// Said here, or Next would answer HEAD with GET: a HEAD is never an open.
export async function HEAD(request: Request, { params }: Context) {
  return openInvitation(request, (await params).code);
}
