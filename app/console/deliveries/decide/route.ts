import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { groupIds, groupKey, groupWords } from "@/server/console/deliveries";
import { consoleStore } from "@/server/console/session";
import { readEnv } from "@/server/env";
import { decideAwaiting } from "@/server/ops/lead-actions";
import { consoleActor } from "@/server/operators/operators";

/** Release or drop a group of sign-ups past the day's texts budget (an owner's action); a drop asks first. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "decide", role: "owner" });
  if (!checked.ok) return checked.answer;
  const fields = await formFields(request);
  const release = fields.get("do") === "release";
  const group = fields.get("group") ?? "";
  if (!groupKey.test(group)) return seeOther("/console/deliveries?done=unknown");
  if (!release && fields.get("confirm") !== "drop")
    return seeOther(`/console/deliveries/confirm-drop?${new URLSearchParams({ group })}`);
  const ids = await groupIds(await consoleStore(), group);
  const subject = `sign-ups past the budget, received from ${groupWords(group).hour}`;
  const rows = await decideAwaiting(readEnv(), { ids, subject, release, by: consoleActor(checked.signed) });
  const done = release ? "released" : "dropped-group";
  return seeOther(`/console/deliveries?${new URLSearchParams({ done, rows: String(rows) })}`);
}
