import "server-only";
import { z } from "zod";
import { invitationLinkMax, isOneSegment, smsTexts } from "@/lib/sms/program";
import { blankToUndefined, count, parseOrThrow } from "@/server/env";
import { readWebhook, type WebhookSettings } from "@/server/outbox/receiver-settings";
import type { SendingHours } from "./quiet-hours";

/**
 * The launch invitations' settings (`npm run invite`, and the pass that sends
 * them): where they go (INVITE_WEBHOOK_URL, _SECRET and _AUTH_HEADER, like a
 * form's), the link the text gives, the pace and the sending hours. Read per
 * call, like the rest of the environment.
 */

/**
 * Whether `npm run invite -- send` (and the console's Send) refuses a wave unless told to send it unsigned: when
 * the invitations would carry neither a signature nor the auth header. The start-up lines say the same from here.
 */
export const sendRefusesUnsigned = ({ secrets, auth }: Pick<WebhookSettings, "secrets" | "auth">) =>
  !secrets?.length && !auth;

// The hours no state rule we know of is narrower than, and no wider than the TCPA's 8 a.m. to 9 p.m.
export const defaultHours: SendingHours = { from: 9, to: 20 };
const bounds = { from: 8, to: 21 };

const hours = z.preprocess(
  blankToUndefined,
  z
    .string()
    .default(`${defaultHours.from}-${defaultHours.to}`)
    .transform((text, context) => {
      const match = /^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*$/.exec(text);
      const [from, to] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
      if (!(from >= bounds.from && to <= bounds.to && from < to)) {
        context.addIssue({
          code: "custom",
          message: `must be two local hours FROM-TO within ${bounds.from}-${bounds.to} (the TCPA's 8 a.m. to 9 p.m.), FROM before TO, e.g. 9-20`,
        });
        return z.NEVER;
      }
      return { from, to } satisfies SendingHours;
    }),
);

const link = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https$/, error: "must be an https:// URL" })
    .refine((url) => url.length <= invitationLinkMax, {
      error: `must be ${invitationLinkMax} characters or fewer, so the invitation stays one SMS segment`,
    })
    .refine((url) => url.length > invitationLinkMax || isOneSegment(smsTexts.invitation(url)), {
      error: "must hold only GSM-7 characters (no ~, {, }, [, ], \\, ^ or |), so the invitation stays one SMS segment",
    })
    .optional(),
);

const schema = z.object({
  INVITE_URL: link,
  INVITE_PER_MINUTE: count(60, 6_000),
  INVITE_HOURS: hours,
});

export type InviteSettings = {
  webhook: WebhookSettings;
  /** The link the invitation text gives, if set. */
  link: string | undefined;
  perMinute: number;
  hours: SendingHours;
};

/** The invitations' settings; throws an EnvError naming each bad variable. */
export function readInviteSettings(): InviteSettings {
  const source = process.env;
  const webhook = readWebhook("invite");
  const values = parseOrThrow(schema, {
    INVITE_URL: source.INVITE_URL,
    INVITE_PER_MINUTE: source.INVITE_PER_MINUTE,
    INVITE_HOURS: source.INVITE_HOURS,
  });
  return { webhook, link: values.INVITE_URL, perMinute: values.INVITE_PER_MINUTE, hours: values.INVITE_HOURS };
}
