// The "Verify and text" node of "Sous: welcome text": each sign-up the site
// delivers to /webhook/sous-waitlist gets one welcome text. Every answer is
// decided here and sent by the Respond to Webhook node after it.

async function main(helpers) {
  return textOnce(helpers, { secrets: "SOUS_WEBHOOK_SECRETS", remember: "texted", textOf: () => PROGRAM.welcome });
}
