import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { isWaveName, launchWave, WaveError } from "@/server/invitations/launch";
import { selectionOf } from "@/server/console/invitations";
import { consoleActor } from "@/server/operators/operators";

/**
 * Send a wave (an owner's action): the owner typed the wave's name and how many it texts, which must be the count the
 * plan gives now; then the wave is queued as `npm run invite -- send` queues it. Anything wrong sends them back to the
 * plan with why, and queues nothing; nothing typed goes into the URL.
 */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "wave sent", role: "owner" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const selection = selectionOf(fields.get("plan"), fields.get("next"));
  const name = (fields.get("name") ?? "").trim().slice(0, 100);
  const typed = (fields.get("count") ?? "").trim().slice(0, 20);
  const back = (error: string) =>
    seeOther(`/console/invitations?${new URLSearchParams({ ...selection.query, error })}`);
  if (!selection.valid) return back("plan");
  if (!isWaveName(name)) return back("name");
  if (!/^\d{1,9}$/.test(typed)) return back("count");
  try {
    await launchWave(checked.signed.store, {
      name,
      selection: selection.selection,
      count: Number(typed),
      by: consoleActor(checked.signed),
    });
    return seeOther(`/console/invitations?${new URLSearchParams({ sent: name })}`);
  } catch (error) {
    if (error instanceof WaveError) return back(error.code);
    throw error;
  }
}
