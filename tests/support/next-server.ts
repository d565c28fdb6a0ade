import path from "node:path";
import { e2e } from "../e2e/e2e-env";
import { freePort, startProcess } from "./processes";

/**
 * Another `next start` on the build the e2e run already made, with its own
 * environment: a second instance, or the same one after a restart.
 */
export async function startNextServer(env: Record<string, string>, port?: number) {
  port ??= await freePort();
  return startProcess(
    path.join(process.cwd(), "node_modules", ".bin", "next"),
    ["start", "--hostname", "127.0.0.1", "--port", String(port)],
    {
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", E2E_TEST_BUILD: e2e.serverEnv.E2E_TEST_BUILD, DATA_DIR: e2e.serverEnv.DATA_DIR, ...env },
      url: `http://127.0.0.1:${port}`,
      ready: (output) => output.includes("Ready in"),
    },
  );
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
) {
  const html = await (await fetch(`${baseUrl}/signup`, { signal })).text();
  const form = new FormData();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?\/>/g)) {
    form.append(name ?? "", decodeEntities(value ?? ""));
  }
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(`${baseUrl}/signup`, { method: "POST", body: form, headers, signal });
  return { status: response.status, html: await response.text() };
}

function decodeEntities(text: string) {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}
