/**
 * The last step of `npm run build`: puts V8's compile hint at the top of the
 * start-up chunks of the build (next.config.ts's distDir, .next). Why, and
 * which chunks: scripts/startup-chunks.ts.
 */
import { PHASE_PRODUCTION_BUILD } from "next/constants";
import nextConfig from "../next.config";
import { addCompileHints } from "./startup-chunks";

async function main() {
  const distDir = nextConfig(PHASE_PRODUCTION_BUILD).distDir ?? ".next";
  const { chunks, added } = await addCompileHints(distDir);
  if (chunks.length === 0) {
    // Not fatal for a deploy; the production-build check in `npm test` fails on it.
    console.warn(`compile hints: no start-up chunks found in ${distDir}; have Next's build manifests changed?`);
    return;
  }
  console.log(`compile hints: ${chunks.length} start-up chunks in ${distDir}, ${added.length} marked now`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
