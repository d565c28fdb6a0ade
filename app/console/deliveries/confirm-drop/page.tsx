import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame } from "@/components/console/console-frame";
import { Details } from "@/components/console/console-table";
import { groupIds, groupKey, groupWords } from "@/server/console/deliveries";
import { maskedPhone } from "@/server/console/waitlist";
import { leadById } from "@/server/outbox/outbox-store";
import { valuesOf } from "@/server/forms/leads";
import { requirePageOperator } from "@/server/console/session";

export const metadata: Metadata = { title: "Drop a lead?" };

type Search = Promise<{ id?: string; group?: string }>;

/** Drop asks first: this page names the lead, or the group of sign-ups past the budget, and only its form drops it. */
export default async function ConfirmDropPage({ searchParams }: { searchParams: Search }) {
  const signed = await requirePageOperator("/console/deliveries", "owner");
  const { allowed, store } = signed;
  if (!allowed)
    return (
      <ConsoleFrame signed={signed} current="/console/deliveries" title="Owners only">
        <p className="mt-4">Only an owner drops a lead.</p>
      </ConsoleFrame>
    );
  const { id, group } = await searchParams;
  const validId = typeof id === "string" && /^msg_[\w-]{1,80}$/.test(id);
  const validGroup = typeof group === "string" && groupKey.test(group);
  const count = validGroup ? (await groupIds(store, group)).length : 1;
  const words = validGroup ? groupWords(group) : undefined;
  // The person, by the name or the number the lead still holds.
  const lead = validId ? await leadById(store, id) : undefined;
  const values = lead && valuesOf(lead);
  const who =
    typeof values?.name === "string"
      ? `${values.name}'s ${values.phone === undefined ? "request" : "sign-up"}`
      : typeof values?.phone === "string"
        ? `the sign-up of ${maskedPhone(values.phone)}`
        : "this lead";
  return (
    <ConsoleFrame signed={signed} current="/console/deliveries" title="Drop this lead?">
      {validId || validGroup ? (
        <form
          method="post"
          action={validGroup ? "/console/deliveries/decide" : "/console/deliveries/drop"}
          className="mt-4 space-y-4"
        >
          <p>
            {words ? (
              <>
                Dropping the {count} sign-up{count === 1 ? "" : "s"} whose numbers start {words.prefix}, received from{" "}
                {words.hour}, deletes them
              </>
            ) : (
              <>Dropping {who} deletes it</>
            )}
            {validGroup
              ? ", their values and their consent records: none will be texted. "
              : " and its delivery log (a sign-up past the day's texts budget, its consent record too): it will never reach its receiver. "}
            This cannot be undone.
          </p>
          {validGroup ? (
            <input type="hidden" name="group" value={group} />
          ) : (
            <>
              <input type="hidden" name="id" value={id} />
              <Details rows={[["Webhook id", id]]} />
            </>
          )}
          {validGroup ? <input type="hidden" name="do" value="drop" /> : null}
          <input type="hidden" name="confirm" value="drop" />
          <div className="flex gap-3">
            <button type="submit" className="rounded-lg bg-red-800 px-4 py-2 font-semibold text-white">
              Drop {count === 1 ? "it" : "them"}
            </button>
            <Link href="/console/deliveries" className="rounded-lg border border-stone-500 px-4 py-2">
              Keep {count === 1 ? "it" : "them"}
            </Link>
          </div>
        </form>
      ) : (
        <p className="mt-4">No lead is named. Go back to the deliveries.</p>
      )}
    </ConsoleFrame>
  );
}
