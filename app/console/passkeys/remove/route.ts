import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { removePasskey } from "@/server/operators/passkeys";

/** A passkey's credential id as WebAuthn gives it (base64url), bounded. */
const credentialId = /^[A-Za-z0-9_-]{1,1400}$/;

/**
 * Revoke: asked first on the passkeys page; confirmed, deletes one passkey and ends every session it opened (an
 * owner's of anyone's, a viewer's of their own), then the page says what it did. Revoking the passkey this browser
 * signed in with signs it out too.
 */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "remove passkey", role: "viewer" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const id = fields.get("id") ?? "";
  if (!credentialId.test(id)) return seeOther("/console/passkeys?done=unknown");
  if (fields.get("confirm") !== "revoke") return seeOther(`/console/passkeys?${new URLSearchParams({ confirm: id })}`);
  const outcome = await removePasskey(checked.signed, id);
  return seeOther(`/console/passkeys?done=${"removed" in outcome ? "removed" : outcome.refused}`);
}
