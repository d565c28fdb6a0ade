import "server-only";
import { jsonAnswer } from "@/server/web/answers";
import { bearerMatches } from "@/server/web/bearer";
import { readEnv } from "@/server/env";
import { checkHealth } from "@/server/ops/health";

/**
 * GET /api/health, for uptime monitors: 200 {"status":"ok"}, or 503 {"status":"degraded","problems":[...]}. Figures per
 * form and for the launch invitations' receiver only with "Authorization: Bearer <HEALTH_TOKEN>"; never a lead's
 * values.
 */
export async function healthRequest(request: Request) {
  const env = readEnv();
  const figures = Boolean(env.HEALTH_TOKEN) && bearerMatches(request.headers.get("authorization"), env.HEALTH_TOKEN!);
  const { status, problems, forms, invitations } = await checkHealth(env, { figures });
  const shown = figures ? { forms, invitations } : {};
  const body = status === "ok" ? { status, ...shown } : { status, problems, ...shown };
  return jsonAnswer(body, { status: status === "ok" ? 200 : 503 });
}
