import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { renameOwnPasskey } from "@/server/operators/passkeys";

/** A new name for one of the operator's own passkeys; the page then shows it. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "rename passkey", role: "viewer" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const renamed = await renameOwnPasskey(checked.signed, fields.get("id") ?? "", fields.get("name") ?? "");
  return seeOther(`/console/passkeys${renamed ? "" : "?done=unnamed"}`);
}
