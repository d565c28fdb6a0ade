import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ConsoleCard, NeedsJavaScript } from "@/components/console/console-frame";
import { PasskeyCeremony } from "@/components/console/passkey-ceremony";
import { consolePath } from "@/server/console/cookie";
import { signedIn } from "@/server/console/session";

export const metadata: Metadata = { title: "Sign in" };

type Search = Promise<{ next?: string | string[]; "signed-out"?: string }>;

export default async function SignInPage({ searchParams }: { searchParams: Search }) {
  const search = await searchParams;
  const next = consolePath(typeof search.next === "string" ? search.next : undefined);
  if (await signedIn()) redirect(next);
  return (
    <ConsoleCard title="Sign in to the console">
      {search["signed-out"] ? <p role="status">You are signed out.</p> : null}
      <p>Sign in with the passkey you registered from your enrolment link.</p>
      <NeedsJavaScript />
      <PasskeyCeremony ceremony="sign-in" next={next} />
      <p className="text-sm">
        No passkey yet? Ask an owner for an enrolment link: they make one on the console&apos;s Operators page.
      </p>
    </ConsoleCard>
  );
}
