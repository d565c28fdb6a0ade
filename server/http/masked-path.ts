// An address: something@something.tld, as a visitor might type it into a path. Each part is bounded (RFC 5321's
// lengths), so a long run of characters that is no address costs each starting point a bounded look.
const email = /[^\s/@]{1,64}@[^\s/@]{1,255}\.[^\s/@]{1,63}/gu;
// A phone number: seven or more digits in any script (full-width ones too), with up to three of anything that is
// neither a letter nor a digit between them: spaces, dots, dashes, brackets, underscores, slashes.
const phone = /[+(]*\p{Nd}(?:[^\p{L}\p{N}]{0,3}\p{Nd}){6,}/gu;
// What a cut can leave of either at the end: digits of any count, or an address without its end.
const cutAtEnd = /(?:[+(]*\p{Nd}(?:[^\p{L}\p{N}]{0,3}\p{Nd})*|[^\s/@]*@[^\s/@]*)$/u;
// A console enrolment link's one-time token (server/operators/operators.ts): a credential, never logged.
const enrolmentToken = /^(\/console\/enrol\/)[^/]+/u;
// Runs of percent-escapes, each decoded on its own: one bad escape leaves the others readable.
const escapes = /(?:%[\da-f]{2})+/giu;

// What a log line keeps of a path, and how much of it is read: a path of any length costs the same.
const KEPT = 200;
const READ = 600;

const decoded = (run: string) => {
  try {
    return decodeURIComponent(run);
  } catch {
    return run;
  }
};

/**
 * A path fit for a log line: percent-decoding undone where it can be, then
 * anything that looks like an email address or a phone number masked, at
 * most 200 characters, an enrolment link's token masked too. The log keeps which kind of path was asked for, never
 * whose details were typed into it. Only the path's first characters are read,
 * so its cost is bounded whatever its length, and what the cut leaves of a
 * number or an address at that edge is masked too.
 */
export function maskedPath(pathname: string) {
  const head = pathname.slice(0, READ);
  let text = head.replace(escapes, decoded);
  if (pathname.length > READ) text = text.replace(cutAtEnd, "[cut]");
  return text.replace(enrolmentToken, "$1[token]").replace(email, "[email]").replace(phone, "[phone]").slice(0, KEPT);
}
