import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One invitation as the stand-in received it. */
export type ReceivedInvitation = {
  webhookId: string;
  phone: string;
  text: string;
  at: number;
  answered: number;
  /** The sous-redelivery-since header: set when an earlier attempt may have been texted. */
  redeliverySince: string | undefined;
};

/**
 * A stand-in for the invitations workflow, on 127.0.0.1, with its answer
 * contract: 200 {texted: true}; 200 {texted: false, code} for a number the
 * carrier refuses (`refuse(phone, code)`); 503 while `outage(true)`; an empty
 * 200, or one whose JSON holds no `texted`, once for a number (`silenceOnce(phone, body)`); with `checkSignature(secret)`,
 * 401 {error: "signature"} for a request that secret did not sign, as the
 * workflow's Code node answers. It
 * records every request (the real workflow and Twilio run in the browser
 * specs).
 */
export async function startInviteReceiver() {
  const received: ReceivedInvitation[] = [];
  const refused = new Map<string, number | null>();
  /** Numbers whose next request gets 200 with this body and no answer in it. */
  const silent = new Map<string, string>();
  let down = false;
  let verifier: Webhook | undefined;
  const signedWell = (headers: Record<string, string | string[] | undefined>, body: string) => {
    try {
      verifier?.verify(body, headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const { phone, text } = JSON.parse(body) as { phone: string; text: string };
      const code = refused.get(phone);
      const signed = signedWell(request.headers, body);
      const status = !signed ? 401 : down ? 503 : 200;
      received.push({
        webhookId: String(request.headers["webhook-id"]),
        phone,
        text,
        at: Date.now(),
        answered: status,
        redeliverySince: request.headers["sous-redelivery-since"] as string | undefined,
      });
      if (!signed) {
        response.writeHead(401, { "content-type": "application/json" });
        return response.end(JSON.stringify({ error: "signature" }));
      }
      // What n8n answers when an execution dies before its Respond node: 200, empty.
      const unanswered = silent.get(phone);
      if (!down && unanswered !== undefined) {
        silent.delete(phone);
        return response.writeHead(200, unanswered ? { "content-type": "application/json" } : {}).end(unanswered);
      }
      response.writeHead(status, { "content-type": "application/json" });
      response.end(
        JSON.stringify(
          down
            ? { texted: false, error: "twilio_unreachable" }
            : refused.has(phone)
              ? { texted: false, ...(code === null ? {} : { code }) }
              : { texted: true },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/invite`,
    received,
    /** The invitations the workflow took (answered 200), of these numbers. */
    texted: (phones?: readonly string[]) =>
      received.filter((request) => request.answered === 200 && (!phones || phones.includes(request.phone))),
    /** The carrier refuses this number: 200 {texted: false, code}, or without a code when it is null. */
    refuse: (phone: string, code: number | null) => void refused.set(phone, code),
    /**
     * The next request for this number gets 200 with no answer: an empty body, as from an n8n execution that
     * died, or the body given (n8n's own `{"message":"Workflow was started"}` where a workflow answers at once).
     */
    silenceOnce: (phone: string, body = "") => void silent.set(phone, body),
    outage: (on: boolean) => void (down = on),
    /** Requests this secret (whsec_…) did not sign are answered 401 {error: "signature"}; undefined checks nothing. */
    checkSignature: (secret: string | undefined) =>
      void (verifier = secret === undefined ? undefined : new Webhook(secret)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
