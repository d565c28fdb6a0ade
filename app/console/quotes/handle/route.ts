import { formFields, gate, seeOther } from "@/server/console/action-guard";
import { markHandled } from "@/server/console/quotes";
import { consoleActor } from "@/server/operators/operators";

/** Handled: an owner marks one quote request as answered; then the quotes page. */
export async function POST(request: Request) {
  const checked = await gate(request, { action: "handled", role: "owner" });
  if (!checked.ok) return checked.answer;
  const id = (await formFields(request)).get("id") ?? "";
  const known =
    /^msg_[\w-]{1,80}$/.test(id) && (await markHandled(checked.signed.store, { id, by: consoleActor(checked.signed) }));
  return seeOther(`/console/quotes?${new URLSearchParams({ done: known ? "handled" : "unknown" })}`);
}
