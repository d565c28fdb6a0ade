// Each part bounded (RFC 5321's lengths), so a long run that is no address costs each starting point a bounded look.
const email = /[^\s/@]{1,64}@[^\s/@]{1,255}\.[^\s/@]{1,63}/gu;
// Seven or more digits of any script, with up to three separators of any kind between them.
const phone = /[+(]*[\p{Nd}\p{No}](?:[^\p{L}\p{N}]{0,3}[\p{Nd}\p{No}]){6,}/gu;
const cutAtEnd = /(?:[+(]*[\p{Nd}\p{No}](?:[^\p{L}\p{N}]{0,3}[\p{Nd}\p{No}])*|[^\s/@]*@[^\s/@]*)$/u;
// An enrolment link's token is a credential, never logged.
const enrolmentToken = /^(\/console\/enrol\/)[^/]+/u;
// Each character decoded on its own, so a bad escape is kept as it came and leaves the others readable.
const escapes = /(?:%[\da-f]{2})+/giu;
const escape = /%[\da-f]{2}/giu;

// A path of any length costs the same.
const KEPT = 200;
const READ = 600;

const spanOf = (byte: number) => (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1);

// A bad escape stands in as a lone high surrogate meanwhile, so digits on both sides of it still make one number.
const FIRST_STAND_IN = 0xd800;
const standIns = /[\ud800-\udbff](?![\udc00-\udfff])/g;

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

/** The log keeps which kind of path was asked for, never whose details were typed into it. */
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
