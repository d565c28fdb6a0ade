// An address: something@something.tld, as a visitor might type it into a path. Each part is bounded (RFC 5321's
// lengths), so a long run of characters that is no address costs each starting point a bounded look.
const email = /[^\s/@]{1,64}@[^\s/@]{1,255}\.[^\s/@]{1,63}/gu;
// A phone number: seven or more digits of any kind Unicode knows (any script's, full-width ones, and the
// superscript and circled ones of \p{No}), with up to three of anything that is neither a letter nor a digit
// between them: spaces, dots, dashes, brackets, underscores, slashes.
const phone = /[+(]*[\p{Nd}\p{No}](?:[^\p{L}\p{N}]{0,3}[\p{Nd}\p{No}]){6,}/gu;
// What a cut can leave of either at the end: digits of any count, or an address without its end.
const cutAtEnd = /(?:[+(]*[\p{Nd}\p{No}](?:[^\p{L}\p{N}]{0,3}[\p{Nd}\p{No}])*|[^\s/@]*@[^\s/@]*)$/u;
// A console enrolment link's one-time token (server/operators/operators.ts): a credential, never logged.
const enrolmentToken = /^(\/console\/enrol\/)[^/]+/u;
// Runs of percent-escapes, and the escapes of one run: each character decoded on its own (one escape, or the two
// to four of one UTF-8 character), so a bad escape among them is kept as it came and leaves the others readable.
const escapes = /(?:%[\da-f]{2})+/giu;
const escape = /%[\da-f]{2}/giu;

// What a log line keeps of a path, and how much of it is read: a path of any length costs the same.
const KEPT = 200;
const READ = 600;

/** How many bytes the UTF-8 character a byte starts spans: 1 for a byte no character starts with (kept as it came). */
const spanOf = (byte: number) => (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1);

// A bad escape is kept as it came, but read as a separator meanwhile, so that digits on both sides of it still make
// one number to mask: it stands as a lone high surrogate, which no decoding and no request line produces, each
// numbered by the escape it stands for (a path's 600 characters hold at most 200 of them, of 1,024).
const FIRST_STAND_IN = 0xd800;
const standIns = /[\ud800-\udbff](?![\udc00-\udfff])/g;

/** Each character of a run of escapes decoded on its own; a bad escape's stand-in, with the escape put in `bad`. */
function decoded(run: string, bad: string[]) {
  const parts = run.match(escape)!;
  let text = "";
  for (let at = 0; at < parts.length;) {
    const span = spanOf(Number.parseInt(parts[at]!.slice(1), 16));
    try {
      text += decodeURIComponent(parts.slice(at, at + span).join(""));
      at += span;
    } catch {
      text += String.fromCharCode(FIRST_STAND_IN + bad.push(parts[at]!) - 1);
      at += 1;
    }
  }
  return text;
}

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
  const bad: string[] = [];
  let text = head.replace(escapes, (run) => decoded(run, bad));
  if (pathname.length > READ) text = text.replace(cutAtEnd, "[cut]");
  return text
    .replace(enrolmentToken, "$1[token]")
    .replace(email, "[email]")
    .replace(phone, "[phone]")
    .replace(standIns, (standIn) => bad[standIn.charCodeAt(0) - FIRST_STAND_IN]!)
    .slice(0, KEPT);
}
