// The "Verify and text" node of "Sous: invitations": each launch invitation the site delivers to
// /webhook/sous-invitation (npm run invite) is texted once, with the exact text the site recorded for it. Every answer
// is decided here and sent by the Respond to Webhook node after it.

async function main(helpers) {
  return textOnce(helpers, {
    secrets: "SOUS_INVITE_WEBHOOK_SECRETS",
    remember: "invited",
    // One segment at most: the site builds it so (INVITE_URL), and a longer one is not what it recorded.
    textOf: (body) => (typeof body.text === "string" && body.text.length <= 160 ? body.text : undefined),
  });
}
