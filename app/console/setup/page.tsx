import { fieldClass } from "@/components/console/console-table";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { ConsoleCard, NeedsJavaScript } from "@/components/console/console-frame";
import { PasskeyCeremony } from "@/components/console/passkey-ceremony";
import { consoleStore } from "@/server/console/session";
import { readEnv } from "@/server/env";
import { setupOpen } from "@/server/operators/passkeys";

export const metadata: Metadata = { title: "Set up the console" };

const field = `mt-1 block w-full ${fieldClass}`;

/**
 * The first owner's enrolment on a host with no shell, with CONSOLE_SETUP_TOKEN: open while no owner exists,
 * and answered as an unknown page once one does (or while no token is set).
 */
export default async function SetupPage() {
  // Read at each request: setup closes the moment an owner exists.
  await connection();
  if (!(await setupOpen(await consoleStore(), readEnv()))) notFound();
  return (
    <ConsoleCard title="Set up the console">
      <p>No owner exists yet. Enter the setup token (CONSOLE_SETUP_TOKEN) and your address, then register a passkey.</p>
      <NeedsJavaScript />
      <PasskeyCeremony ceremony="setup">
        <label className="block">
          <span className="font-semibold">Setup token</span>
          <input name="token" type="password" required autoComplete="off" maxLength={200} className={field} />
        </label>
        <label className="block">
          <span className="font-semibold">Your email address</span>
          <input name="email" type="email" required autoComplete="email" maxLength={320} className={field} />
        </label>
      </PasskeyCeremony>
    </ConsoleCard>
  );
}
