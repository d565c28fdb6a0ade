import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { readEnv } from "@/server/env";
import { dropLeadById } from "@/server/ops/lead-actions";
import { consoleActor } from "@/server/operators/operators";

/** Drop: deletes one lead and its delivery log, once confirmed (an owner's action); then the deliveries page. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "drop", role: "owner" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const id = fields.get("id") ?? "";
  if (!/^msg_[\w-]{1,80}$/.test(id)) return seeOther("/console/deliveries?done=unknown");
  // Not confirmed: the page that asks, and nothing dropped.
  if (fields.get("confirm") !== "drop")
    return seeOther(`/console/deliveries/confirm-drop?${new URLSearchParams({ id })}`);
  const dropped = await dropLeadById(readEnv(), { id, by: consoleActor(checked.signed) });
  return seeOther(`/console/deliveries?${new URLSearchParams({ done: dropped ? "dropped" : "unknown", id })}`);
}
