import { notFound } from "next/navigation";
import { connection } from "next/server";
import { errorContent } from "@/components/errors/error-content";
import { ThrowAfterHydration } from "@/components/errors/throw-after-hydration";
import { readEnv } from "@/server/env";

/**
 * Lets the browser tests reach the error boundaries. It answers 404 unless the
 * server runs with ENABLE_TEST_ROUTES=true, which no deployment should set.
 */
export default async function TestErrorPage({ searchParams }: PageProps<"/test-error">) {
  await connection();
  if (!readEnv().ENABLE_TEST_ROUTES) notFound();
  if ((await searchParams).in === "browser") return <ThrowAfterHydration message={errorContent.testMessage} />;
  throw new Error(errorContent.testMessage);
}
