// An address: something@something.tld, as a visitor might type it into a path.
const email = /[^\s/@]+@[^\s/@]+\.[^\s/@]+/g;
// A phone number: seven or more digits, with the separators people write between them.
const phone = /[+(]*\d(?:[\s().-]*\d){6,}/g;

/**
 * A path fit for a log line: percent-decoding undone where it can be, then
 * anything that looks like an email address or a phone number masked, at
 * most 200 characters. The log keeps which kind of path was asked for, never
 * whose details were typed into it.
 */
export function maskedPath(pathname: string) {
  let decoded = pathname;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    // Not valid percent-encoding: masked as it came.
  }
  return decoded.replace(email, "[email]").replace(phone, "[phone]").slice(0, 200);
}
