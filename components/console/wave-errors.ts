/** What went wrong with a send or a cancel, by the code the redirect carries (WaveError's, or the route's own). */
const waveErrors = new Map([
  ["plan", "Choose who the wave is for: the next N (1 to 10,000) or everyone."],
  ["name", 'The wave\'s name: letters, digits, ".", "_" or "-", 64 at most, starting with a letter or digit.'],
  ["count", "The count you typed is not how many this plan texts now: read the plan again, then type its count."],
  ["exists", "A wave of that name exists already: a name is used once. Nothing was queued."],
  [
    "unset",
    "INVITE_WEBHOOK_URL, INVITE_URL or SITE_URL is not set: the invitations would have nowhere to go. Nothing was queued.",
  ],
  ["long", "SITE_URL is too long for the invitation's link to fit its one text. Nothing was queued."],
  [
    "unsigned",
    "INVITE_WEBHOOK_SECRET (or INVITE_WEBHOOK_AUTH_HEADER) is not set: the invitations would go out unsigned. Set it (docs/webhooks.md). Nothing was queued.",
  ],
  ["unknown", "There is no wave of that name."],
]);

/** The words for a refusal's code; none for anything else, an object's own keys included. */
export const waveErrorOf = (code: unknown) => (typeof code === "string" ? waveErrors.get(code) : undefined);

export const waveErrorCodes = [...waveErrors.keys()];
