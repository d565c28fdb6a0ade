import type { Metadata } from "next";
import { ConsoleCard, NeedsJavaScript } from "@/components/console/console-frame";
import { PasskeyCeremony } from "@/components/console/passkey-ceremony";
import { consoleStore } from "@/server/console/session";
import { linkOperator } from "@/server/operators/operator-store";

export const metadata: Metadata = { title: "Register a passkey", referrer: "no-referrer" };

/** An enrolment link: who it is for, and the passkey's registration; or why it no longer works. */
export default async function EnrolPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const found = token.length <= 100 ? await linkOperator(await consoleStore(), token) : undefined;
  if (!found)
    return (
      <ConsoleCard title="This enrolment link does not work">
        <p>
          It was used, it ran out (links last 15 minutes), or it never was. Ask an owner for a new one: they make it on
          the console&apos;s Operators page.
        </p>
      </ConsoleCard>
    );
  return (
    <ConsoleCard title="Register a passkey">
      <p>
        For <strong>{found.operator.email}</strong> ({found.operator.role}). Your device keeps the passkey; this console
        keeps only its public key. The link works once.
      </p>
      <NeedsJavaScript />
      <PasskeyCeremony ceremony="enrol" token={token} />
    </ConsoleCard>
  );
}
