/** What went wrong with a send or a cancel, by the code the redirect carries (WaveError's, or the route's own). */
const waveErrors = new Map([
  ["plan", "Choose who the wave is for: the next N (1 to 10,000) or everyone."],
  ["name", 'The wave\'s name: letters, digits, ".", "_" or "-", 64 at most, starting with a letter or digit.'],
  ["count", "The count you typed is not how many this plan texts now: read the plan again, then type its count."],
  ["exists", "A wave of that name exists already: a name is used once. Nothing was queued."],
  [
    "unset",
    "Invitations are not configured: the workflow that texts them, where their link leads or the site's address is missing (the operator's guide, Inviting the waitlist). Nothing was queued.",
  ],
  ["long", "The site's address is too long for the invitation's link to fit its one text. Nothing was queued."],
  [
    "unsigned",
    "The invitations would go out unsigned: their workflow has no secret set (the webhooks guide says how). Nothing was queued.",
  ],
  ["unknown", "There is no wave of that name."],
]);

/** The words for a refusal's code; none for anything else, an object's own keys included. */
export const waveErrorOf = (code: unknown) => (typeof code === "string" ? waveErrors.get(code) : undefined);

export const waveErrorCodes = [...waveErrors.keys()];
