import { connection } from "next/server";
import { testErrorMessage } from "./test-message";
import { ThrowAfterHydration } from "./throw-after-hydration.e2e";

/**
 * Test fixture, in the browser tests' build only (E2E_TEST_BUILD=1, see
 * next.config.ts): fails on the server, or with ?in=browser after hydration, so
 * the tests reach the error boundaries.
 */
export default async function TestErrorPage({ searchParams }: { searchParams: Promise<{ in?: string }> }) {
  await connection();
  if ((await searchParams).in === "browser") return <ThrowAfterHydration message={testErrorMessage} />;
  throw new Error(testErrorMessage);
}
