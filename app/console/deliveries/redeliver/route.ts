import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { readEnv } from "@/server/env";
import { redeliverLeads } from "@/server/ops/lead-actions";
import { consoleActor } from "@/server/operators/operators";

/** Redeliver: one open lead now, by its webhook-id (an owner's action); then the deliveries page says what it did. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "redeliver", role: "owner" });
  if (!checked.ok) return checked.answer;
  const id = (await formFields(request)).get("id") ?? "";
  if (!/^msg_[\w-]{1,80}$/.test(id)) return seeOther("/console/deliveries?done=unknown");
  const summary = await redeliverLeads(readEnv(), { id, by: consoleActor(checked.signed) });
  return seeOther(
    `/console/deliveries?${new URLSearchParams({ done: summary.delivered ? "delivered" : "tried", id })}`,
  );
}
