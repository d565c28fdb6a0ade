import { formFields, gate, seeOther, sessionTokenOf } from "@/server/console/action-guard";
import { endSessions } from "@/server/operators/passkeys";

/**
 * End sessions (anyone's own): one, by its row's id, or every one but this
 * browser's; then the passkeys page, where they are listed.
 */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "end sessions", role: "viewer" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const id = fields.get("id") ?? "";
  await endSessions(checked.signed, {
    current: sessionTokenOf(request.headers)!,
    ...(fields.get("others") === "1" ? {} : { ids: /^[0-9a-f]{64}$/.test(id) ? [id] : [] }),
  });
  return seeOther("/console/passkeys?done=ended");
}
