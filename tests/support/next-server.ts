import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { e2e } from "../e2e/e2e-env";
import { onFreePort, stablePort, startProcess } from "./processes";

/**
 * Another server on the build the e2e run already made, started as `npm
 * start` starts it (scripts/start.mjs), with its own environment: a second
 * instance, or the same one after a restart. `command: "next start"` starts
 * Next's own server instead, for what must hold without ours.
 */
export function startNextServer(
  env: Record<string, string>,
  port?: number,
  command: "npm start" | "next start" = "npm start",
) {
  const launch = (port: number) => {
    const options = ["--hostname", "127.0.0.1", "--port", String(port)];
    return startProcess(
      process.execPath,
      command === "npm start"
        ? [path.join(process.cwd(), "scripts", "start.mjs"), ...options]
        : [path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next"), "start", ...options],
      {
        env: {
          ...process.env,
          NODE_ENV: "production",
          NEXT_TELEMETRY_DISABLED: "1",
          DATA_DIR: e2e.serverEnv.DATA_DIR,
          TRUSTED_PROXY_HOPS: e2e.serverEnv.TRUSTED_PROXY_HOPS,
          // Its texts budget counts in the run's database, which every spec's servers share.
          RATE_LIMIT_WAITLIST_PER_MINUTE: e2e.serverEnv.RATE_LIMIT_WAITLIST_PER_MINUTE,
          WAITLIST_DAILY_LIMIT: e2e.serverEnv.WAITLIST_DAILY_LIMIT,
          ...env,
        },
        url: `http://127.0.0.1:${port}`,
        ready: (output) => output.includes("Ready in"),
      },
    );
  };
  // A port the caller chose (a restart on the same address) is kept; one of ours is chosen again if taken.
  return port === undefined ? onFreePort(launch) : launch(port);
}

/**
 * A server of its own for a console spec: its own database, on `localhost` (a passkey needs a name, not an address),
 * the setup token set. `stop()` ends it and removes its data.
 */
export async function startConsoleSite(name: string, env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), `sous-${name}-`));
  const port = await stablePort();
  const site = `http://localhost:${port}`;
  const setupToken = `${name}-setup-token-of-this-spec-0123456789`;
  const settings = {
    DATA_DIR: dataDir,
    SITE_URL: site,
    SITE_ALIASES: `127.0.0.1:${port}`,
    CONSOLE_SETUP_TOKEN: setupToken,
    ...env,
  };
  const server = await startNextServer(settings, port);
  const stop = async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { dataDir, port, site, setupToken, env: settings, server, stop };
}

/**
 * Posts the sign-up form as a browser without JavaScript does: the fields plus
 * the hidden inputs React rendered for the server action.
 */
export async function postSignupWithoutScript(
  baseUrl: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
  { follow = true }: { follow?: boolean } = {},
) {
  const html = await (await fetch(`${baseUrl}/signup`, { signal })).text();
  const form = new FormData();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?\/>/g)) {
    form.append(name ?? "", decodeEntities(value ?? ""));
  }
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  // Followed as a browser would, unless asked not to: a sign-up that went through ends in a 303 to its result page.
  const response = await fetch(`${baseUrl}/signup`, {
    method: "POST",
    body: form,
    headers,
    signal,
    redirect: follow ? "follow" : "manual",
  });
  return {
    status: response.status,
    html: await response.text(),
    url: new URL(response.url).pathname,
    location: response.headers.get("location"),
  };
}

function decodeEntities(text: string) {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}
