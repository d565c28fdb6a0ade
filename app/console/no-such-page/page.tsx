import Link from "next/link";
import { ConsoleCard, NoSuch } from "@/components/console/console-frame";
import { signedIn } from "@/server/console/session";

/** What middleware.ts answers, with a 404 (titled "Page not found" by Next), for an address no page or chef has. */
export default async function NoSuchPage({ searchParams }: { searchParams: Promise<{ of?: string }> }) {
  const signed = await signedIn();
  if (signed) return <NoSuch signed={signed} of={(await searchParams).of === "chef" ? "chef" : "page"} />;
  return (
    <ConsoleCard title="No such page">
      <p>Nothing in the console has this address.</p>
      <p>
        <Link href="/console/sign-in" className="underline underline-offset-4">
          Sign in to the console
        </Link>
      </p>
    </ConsoleCard>
  );
}
