import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { isTimeZone } from "@/server/env";
import { setTimeZone } from "@/server/operators/operator-store";

/** The time zone an operator reads the console's days and weeks in: theirs, any role; then the overview. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "time zone", role: "viewer" });
  if (!checked.ok) return checked.answer;
  const zone = (await formFields(request)).get("zone") ?? "";
  if (!isTimeZone(zone)) return seeOther("/console?done=unknown-zone");
  await setTimeZone(checked.signed.store, checked.signed.operator.id, zone);
  return seeOther("/console");
}
