import type { Metadata } from "next";
import type { ReactNode } from "react";
import { ConsoleStyles } from "@/components/console/console-styles";
// The console's stylesheet through Next's pipeline under `next dev` only; a build writes it in <ConsoleStyles>.
import "#dev-console-styles";

export const metadata: Metadata = {
  title: { default: "Console", template: "%s | Sous console" },
  robots: { index: false, follow: false },
};

/** Every console page: its own stylesheet. Who may see each page is checked in the page itself. */
export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <ConsoleStyles />
      <div className="min-h-screen bg-cream text-ink">{children}</div>
    </>
  );
}
