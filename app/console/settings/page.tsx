import type { Metadata } from "next";
import { ConsoleFrame } from "@/components/console/console-frame";
import { HeaderRow, Section, WideTable } from "@/components/console/console-table";
import { readEnv } from "@/server/env";
import { requirePageOperator } from "@/server/console/session";
import { ownerSettings } from "@/server/console/unreached";

export const metadata: Metadata = { title: "Settings" };

/** The docs page the console's warnings link to: which setting cures each, and whether it is set. */
export default async function SettingsPage() {
  const signed = await requirePageOperator("/console/settings");
  return (
    <ConsoleFrame signed={signed} current="/console/settings" title="Settings">
      <p className="mt-2 max-w-prose">
        An owner sets these in the host&apos;s environment settings (on Vercel: the project&apos;s Settings, then
        Environment Variables; on your own server: the file <code>.env.local</code>), then redeploys or restarts the
        site. This page shows only whether each is set, never its value. The project&apos;s <code>.env.example</code>{" "}
        and <code>docs/operating.md</code> describe every other setting.
      </p>
      {ownerSettings(readEnv()).map((section) => (
        <Section key={section.id} id={section.id} title={section.title}>
          <WideTable label={`${section.title}: settings`} className="mt-2">
            <table className="w-full text-sm">
              <HeaderRow labels={["Setting", "What it does", "Set"]} />
              <tbody>
                {section.settings.map((setting) => (
                  <tr key={setting.name} className="border-b border-stone-200 align-top">
                    <td className="py-1 pr-4">
                      <code>{setting.name}</code>
                    </td>
                    <td className="py-1 pr-4">{setting.what}</td>
                    <td className="py-1">{setting.set ? "yes" : "no"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
        </Section>
      ))}
    </ConsoleFrame>
  );
}
