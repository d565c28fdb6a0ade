/**
 * The operator's commands read their settings exactly as `next start` does: Next's own loader, the same files in the
 * same order (.env.production.local, .env.local, .env.production, .env), a variable already set winning over all of
 * them. Imported first by every command, so nothing reads the environment before.
 */
import { loadEnvConfig } from "@next/env";

// As `next start` does: production unless the shell says otherwise (under "test", Next skips .env.local).
(process.env as Record<string, string>).NODE_ENV ||= "production";

loadEnvConfig(process.cwd(), false, { info: () => {}, error: (...parts: unknown[]) => console.error(...parts) });
