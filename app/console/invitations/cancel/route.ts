import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { cancelWaveNamed, isWaveName, WaveError } from "@/server/invitations/launch";
import { consoleActor } from "@/server/operators/operators";

/** Cancel what a wave has not sent yet (an owner's action), as `npm run invite -- cancel` does. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "wave cancelled", role: "owner" });
  if (!checked.ok) return checked.answer;
  const name = (await formFields(request)).get("name") ?? "";
  if (!isWaveName(name)) return seeOther("/console/invitations?error=unknown");
  try {
    await cancelWaveNamed(checked.signed.store, { name, by: consoleActor(checked.signed) });
    return seeOther(`/console/invitations?${new URLSearchParams({ cancelled: name })}`);
  } catch (error) {
    if (error instanceof WaveError) return seeOther(`/console/invitations?error=${error.code}`);
    throw error;
  }
}
