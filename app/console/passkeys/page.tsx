import type { Metadata } from "next";
import { ConsoleFrame, NeedsJavaScript, Outcome } from "@/components/console/console-frame";
import {
  Confirm,
  dangerButton,
  Details,
  fieldClass,
  HeaderRow,
  plainButton,
  Section,
  utc,
  WideTable,
} from "@/components/console/console-table";
import { PasskeyCeremony } from "@/components/console/passkey-ceremony";
import { requirePageOperator } from "@/server/console/session";
import { cookies } from "next/headers";
import { cookieOf } from "@/server/console/cookie";
import { justDid, type ActivityAction } from "@/server/operators/activity-store";
import { listPasskeys, sessionsOf, type ListedPasskey } from "@/server/operators/operator-store";
import { PASSKEY_NAME_MAX } from "@/server/operators/passkeys";

export const metadata: Metadata = { title: "Passkeys" };

/** What the operator just did, in words: named by the redirect, told only when the activity log holds it. */
const reports = new Map<string, { action: ActivityAction; words: (rows: number) => string }>([
  ["added", { action: "passkey added", words: () => "Passkey added: this device signs you in from now on." }],
  ["removed", { action: "passkey removed", words: () => "Passkey revoked: every session it opened has ended." }],
  ["ended", { action: "sessions ended", words: (rows) => `Ended ${rows} ${rows === 1 ? "session" : "sessions"}.` }],
]);
/** Why nothing was done: no action to find in the log. */
const refusals = new Map([
  ["unknown", "No passkey you may revoke has that id: nothing was revoked."],
  ["unnamed", `Not renamed: a passkey's name is 1 to ${PASSKEY_NAME_MAX} characters, and yours to give.`],
  [
    "last",
    "Not revoked: it is the last passkey any owner has, and without it nobody could sign in to manage the console. Register another owner's passkey first.",
  ],
]);

/** A credential id is long; its start tells two apart, and is nobody's data. */
const shortId = (id: string) => `${id.slice(0, 10)}…`;

/** The device's name, its operator's to change (a form behind "Rename"), and its id behind "Details". */
function PasskeyName({ passkey, renames }: { passkey: ListedPasskey; renames: boolean }) {
  const name = passkey.name ?? "A passkey";
  return (
    <>
      {name}
      {renames ? (
        <details className="mt-1">
          <summary className="cursor-pointer">Rename</summary>
          <form method="post" action="/console/passkeys/rename" className="mt-1 flex flex-wrap gap-2">
            <input type="hidden" name="id" value={passkey.id} />
            <input
              name="name"
              defaultValue={name}
              maxLength={PASSKEY_NAME_MAX}
              required
              aria-label={`A new name for passkey ${shortId(passkey.id)}`}
              className={fieldClass}
            />
            <button type="submit" className={plainButton}>
              Rename
            </button>
          </form>
        </details>
      ) : null}
      <Details rows={[["Credential id", passkey.id]]} />
    </>
  );
}

function PasskeyTable({
  caption,
  passkeys,
  revoke,
  renames = false,
  byOperator = false,
}: {
  caption: string;
  passkeys: ListedPasskey[];
  revoke: boolean;
  renames?: boolean;
  byOperator?: boolean;
}) {
  return (
    <WideTable label={caption} className="mt-4">
      <table className="w-full text-sm">
        <caption className="text-left font-semibold">{caption}</caption>
        <HeaderRow
          labels={[
            ...(byOperator ? ["Operator"] : []),
            "Passkey",
            "Registered",
            "Last used",
            ...(revoke ? ["Revoke"] : []),
          ]}
        />
        <tbody>
          {passkeys.map((passkey) => (
            <tr key={passkey.id} className="border-b border-stone-200">
              {byOperator ? <td className="py-1 pr-4">{passkey.email}</td> : null}
              <td className="py-1 pr-4">
                <PasskeyName passkey={passkey} renames={renames} />
              </td>
              <td className="py-1 pr-4 tabular-nums">{utc(passkey.createdAt)}</td>
              <td className="py-1 pr-4 tabular-nums">{passkey.usedAt === null ? "never" : utc(passkey.usedAt)}</td>
              {revoke ? (
                <td className="py-1">
                  <form method="post" action="/console/passkeys/remove">
                    <input type="hidden" name="id" value={passkey.id} />
                    <button
                      type="submit"
                      aria-label={`Revoke ${passkey.email}'s passkey ${shortId(passkey.id)}`}
                      className={dangerButton}
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
    </WideTable>
  );
}

type Session = Awaited<ReturnType<typeof sessionsOf>>[number];

/** The operator's sessions: each browser signed in as them, any of which they end. */
function SessionTable({ sessions }: { sessions: Session[] }) {
  return (
    <WideTable label="Your sessions" className="mt-4">
      <table className="w-full text-sm">
        <caption className="text-left font-semibold">Your sessions</caption>
        <HeaderRow labels={["Browser", "Started", "Last used", "End"]} />
        <tbody>
          {sessions.map((session) => {
            const browser = session.browser ?? "A browser";
            return (
              <tr key={session.id} className="border-b border-stone-200">
                <td className="py-1 pr-4">{browser}</td>
                <td className="py-1 pr-4 tabular-nums">{utc(session.createdAt)}</td>
                <td className="py-1 pr-4 tabular-nums">{utc(session.seenAt)}</td>
                <td className="py-1">
                  {session.current ? (
                    "This browser"
                  ) : (
                    <form method="post" action="/console/sessions/end">
                      <input type="hidden" name="id" value={session.id} />
                      <button
                        type="submit"
                        aria-label={`End the session of ${browser} started ${utc(session.createdAt)}`}
                        className={dangerButton}
                      >
                        End
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </WideTable>
  );
}

/**
 * The operator's passkeys, and another one for a new device (the ceremony
 * needs JavaScript, as every passkey does); an owner sees every operator's
 * and can revoke one (a lost device), which ends the sessions it opened.
 */
export default async function PasskeysPage({
  searchParams,
}: {
  searchParams: Promise<{ done?: string; confirm?: string }>;
}) {
  const signed = await requirePageOperator("/console/passkeys");
  const { operator, store } = signed;
  const query = await searchParams;
  const done = String(query.done);
  const report = reports.get(done);
  const did = report && (await justDid(store, { actor: operator.email, action: report.action }));
  const outcome = refusals.get(done) ?? (did ? report!.words(did.rows) : undefined);
  const owner = operator.role === "owner";
  const passkeys = await listPasskeys(store, owner ? {} : { operatorId: operator.id });
  const sessions = await sessionsOf(store, operator.id, (await cookies()).get(cookieOf().name)?.value ?? "");
  // Asked before it is done: only of a passkey this operator may revoke.
  const asked = passkeys.find(
    (passkey) => passkey.id === query.confirm && (owner || passkey.operatorId === operator.id),
  );
  return (
    <ConsoleFrame signed={signed} current="/console/passkeys" title="Passkeys">
      {outcome ? <Outcome>{outcome}</Outcome> : null}
      {asked ? (
        <Confirm
          title={`Revoke ${asked.email}'s passkey “${asked.name ?? shortId(asked.id)}”?`}
          action="/console/passkeys/remove"
          fields={{ id: asked.id, confirm: "revoke" }}
          act="Revoke it"
          keep={{ href: "/console/passkeys", label: "Keep it" }}
        >
          Registered {utc(asked.createdAt)} UTC. Every session it opened ends at once, and it signs no one in again.
        </Confirm>
      ) : null}
      <Section id="yours" title="Yours">
        <PasskeyTable
          caption={`${operator.email}'s passkeys`}
          passkeys={passkeys.filter((passkey) => passkey.operatorId === operator.id)}
          revoke={!owner}
          renames
        />
        <p className="mt-6">
          On a new device, signed in here, add a passkey of that device: it then signs you in on its own.
        </p>
        <div className="mt-3">
          <NeedsJavaScript />
          <PasskeyCeremony ceremony="add" />
        </div>
      </Section>
      {owner ? (
        <Section id="everyone" title="Every operator's">
          <p className="mt-2">
            Revoking a passkey ends at once every session it opened; the operator&apos;s other passkeys keep working.
            For a lost device, revoke its passkey, then give the operator a new link from the{" "}
            <a href="/console/operators" className="underline underline-offset-4">
              Operators
            </a>{" "}
            page if it was their only one.
          </p>
          <PasskeyTable caption="Every passkey, by operator" passkeys={passkeys} revoke byOperator />
        </Section>
      ) : null}
      <Section id="sessions" title="Sessions">
        <p className="mt-2">
          Every browser signed in as you. End one you do not recognise; a new sign-in ends this browser&apos;s session
          before it.
        </p>
        <SessionTable sessions={sessions} />
        {sessions.length > 1 ? (
          <form method="post" action="/console/sessions/end" className="mt-3">
            <input type="hidden" name="others" value="1" />
            <button type="submit" className={dangerButton}>
              End all other sessions
            </button>
          </form>
        ) : null}
      </Section>
    </ConsoleFrame>
  );
}
