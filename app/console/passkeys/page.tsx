import type { Metadata } from "next";
import { ConsoleFrame, NeedsJavaScript, Outcome } from "@/components/console/console-frame";
import { HeaderRow, utc } from "@/components/console/console-table";
import { PasskeyCeremony } from "@/components/console/passkey-ceremony";
import { requirePageOperator } from "@/server/console/session";
import { listPasskeys, type ListedPasskey } from "@/server/operators/operator-store";

export const metadata: Metadata = { title: "Passkeys" };

/** What the last action did, in words: from the redirect's query, which names nothing but the outcome. */
const outcomes: Record<string, string> = {
  added: "Passkey added: this device signs you in from now on.",
  removed: "Passkey revoked: every session it opened has ended.",
  unknown: "No passkey has that id: nothing was revoked.",
  last: "Not revoked: it is the last passkey any owner has, and without it nobody could sign in to manage the console. Register another owner's passkey first.",
};

/** A credential id is long; its start tells two apart, and is nobody's data. */
const shortId = (id: string) => `${id.slice(0, 10)}…`;

function PasskeyTable({ caption, passkeys, revoke }: { caption: string; passkeys: ListedPasskey[]; revoke: boolean }) {
  return (
    <table className="mt-4 w-full text-sm">
      <caption className="text-left font-semibold">{caption}</caption>
      <HeaderRow
        labels={
          revoke ? ["Operator", "Passkey", "Registered", "Last used", "Revoke"] : ["Passkey", "Registered", "Last used"]
        }
      />
      <tbody>
        {passkeys.map((passkey) => (
          <tr key={passkey.id} className="border-b border-stone-200">
            {revoke ? <td className="py-1 pr-4">{passkey.email}</td> : null}
            <td className="py-1 pr-4 font-mono">{shortId(passkey.id)}</td>
            <td className="py-1 pr-4 tabular-nums">{utc(passkey.createdAt)}</td>
            <td className="py-1 pr-4 tabular-nums">{passkey.usedAt === null ? "never" : utc(passkey.usedAt)}</td>
            {revoke ? (
              <td className="py-1">
                <form method="post" action="/console/passkeys/remove">
                  <input type="hidden" name="id" value={passkey.id} />
                  <button
                    type="submit"
                    aria-label={`Revoke ${passkey.email}'s passkey ${shortId(passkey.id)}`}
                    className="rounded-lg border border-red-800 px-3 py-1 text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-brand-700"
                  >
                    Revoke
                  </button>
                </form>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The operator's passkeys, and another one for a new device (the ceremony
 * needs JavaScript, as every passkey does); an owner sees every operator's
 * and can revoke one (a lost device), which ends the sessions it opened.
 */
export default async function PasskeysPage({ searchParams }: { searchParams: Promise<{ done?: string }> }) {
  const { operator, store } = await requirePageOperator("/console/passkeys");
  const done = (await searchParams).done;
  const outcome = typeof done === "string" ? outcomes[done] : undefined;
  const owner = operator.role === "owner";
  const passkeys = await listPasskeys(store, owner ? {} : { operatorId: operator.id });
  return (
    <ConsoleFrame operator={operator} current="/console/passkeys" title="Passkeys">
      {outcome ? <Outcome>{outcome}</Outcome> : null}
      <section aria-labelledby="yours" className="mt-8">
        <h2 id="yours" className="text-xl font-bold">
          Yours
        </h2>
        <PasskeyTable
          caption={`${operator.email}'s passkeys`}
          passkeys={passkeys.filter((passkey) => passkey.operatorId === operator.id)}
          revoke={false}
        />
        <p className="mt-6">
          On a new device, signed in here, add a passkey of that device: it then signs you in on its own.
        </p>
        <div className="mt-3">
          <NeedsJavaScript />
          <PasskeyCeremony ceremony="add" />
        </div>
      </section>
      {owner ? (
        <section aria-labelledby="everyone" className="mt-10">
          <h2 id="everyone" className="text-xl font-bold">
            Every operator&apos;s
          </h2>
          <p className="mt-2">
            Revoking a passkey ends at once every session it opened; the operator&apos;s other passkeys keep working.
            For a lost device, revoke its passkey, then give the operator a new link (
            <code>npm run operators -- link EMAIL</code>) if it was their only one.
          </p>
          <PasskeyTable caption="Every passkey, by operator" passkeys={passkeys} revoke />
        </section>
      ) : null}
    </ConsoleFrame>
  );
}
