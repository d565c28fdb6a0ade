import { createRequire } from "node:module";
import { describe, expect, it, vi } from "vitest";
import { signatureHeaders, signedByOneOf } from "@/server/outbox/webhook";
import { helpersFor } from "./build";

/**
 * Standard Webhooks is written twice: in the site (server/outbox/webhook.ts,
 * over the standardwebhooks package) and in the workflows' Code nodes
 * (workflows/n8n/code/shared.js, with Node's crypto, which is all a Code node
 * has). Each signs what the other verifies, so the two cannot drift.
 */

type Workflow = {
  standardHeaders(secrets: string[], id: string, body: string, nowSeconds: number): Record<string, string>;
  verifyStandardWebhook(
    headers: Record<string, string>,
    body: string,
    secrets: string[],
    nowSeconds: number,
  ): { ok: boolean; reason?: string };
};

/** The workflow's own helpers, as the build puts them into a Code node, run here. */
function workflowSigning(): Workflow {
  const { opening, helpers } = helpersFor("standardHeaders verifyStandardWebhook");
  const code = [opening, ...helpers.map((helper) => helper.text)].join("\n\n");
  // The Code node's source, run as n8n runs it.
  const run = new Function("require", `${code}\nreturn { standardHeaders, verifyStandardWebhook };`) as (
    require: NodeJS.Require,
  ) => Workflow;
  return run(createRequire(import.meta.url));
}

const secret = `whsec_${Buffer.from("a-secret-for-the-agreement-test!").toString("base64")}`;
const other = `whsec_${Buffer.from("another-secret-nobody-signs-with").toString("base64")}`;
const body = JSON.stringify({ phone: "+15551234567", text: 'Sous: ünïcode and "quotes"' });
const id = "msg_2f3c1c1e-0000-4000-8000-000000000001";

describe("the site's and the workflows' Standard Webhooks", () => {
  const workflow = workflowSigning();
  const now = new Date();
  const seconds = Math.floor(now.getTime() / 1000);

  it("the workflow verifies what the site signs, with either secret of a rotation, and refuses a changed body or another secret", () => {
    vi.setSystemTime(now);
    const headers = signatureHeaders(id, body, [other, secret]);
    expect(workflow.verifyStandardWebhook(headers, body, [secret], seconds)).toStrictEqual({ ok: true, id });
    expect(workflow.verifyStandardWebhook(headers, `${body} `, [secret], seconds)).toMatchObject({
      ok: false,
      reason: "signature",
    });
    const signedByOther = signatureHeaders(id, body, [other]);
    expect(workflow.verifyStandardWebhook(signedByOther, body, [secret], seconds)).toMatchObject({ ok: false });
  });

  it("the site verifies what the workflow signs, and refuses a changed body, another secret and a stale call", () => {
    const headers = new Headers(workflow.standardHeaders([secret], id, body, seconds));
    expect(signedByOneOf([secret], body, headers)).toBe(true);
    expect(signedByOneOf([other, secret], body, headers)).toBe(true);
    expect(signedByOneOf([secret], body.replace("+1555", "+1556"), headers)).toBe(false);
    expect(signedByOneOf([other], body, headers)).toBe(false);
    const stale = new Headers(workflow.standardHeaders([secret], id, body, seconds - 301));
    expect(signedByOneOf([secret], body, stale)).toBe(false);
  });
});
