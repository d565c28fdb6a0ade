import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleFrame } from "@/components/console/console-frame";
import { requirePageOperator } from "@/server/console/session";

export const metadata: Metadata = { title: "Drop a lead?" };

/** Drop asks first: this page names the lead, and only its form drops it. */
export default async function ConfirmDropPage({ searchParams }: { searchParams: Promise<{ id?: string }> }) {
  const signed = await requirePageOperator("/console/deliveries", "owner");
  const { allowed } = signed;
  if (!allowed)
    return (
      <ConsoleFrame signed={signed} current="/console/deliveries" title="Owners only">
        <p className="mt-4">Only an owner drops a lead.</p>
      </ConsoleFrame>
    );
  const { id } = await searchParams;
  const valid = typeof id === "string" && /^msg_[\w-]{1,80}$/.test(id);
  return (
    <ConsoleFrame signed={signed} current="/console/deliveries" title="Drop this lead?">
      {valid ? (
        <form method="post" action="/console/deliveries/drop" className="mt-4 space-y-4">
          <p>
            Dropping <code>{id}</code> deletes it and its delivery log: it will never reach its receiver. This cannot be
            undone.
          </p>
          <input type="hidden" name="id" value={id} />
          <input type="hidden" name="confirm" value="drop" />
          <div className="flex gap-3">
            <button type="submit" className="rounded-lg bg-red-800 px-4 py-2 font-semibold text-white">
              Drop it
            </button>
            <Link href="/console/deliveries" className="rounded-lg border border-stone-500 px-4 py-2">
              Keep it
            </Link>
          </div>
        </form>
      ) : (
        <p className="mt-4">No lead is named. Go back to the deliveries.</p>
      )}
    </ConsoleFrame>
  );
}
