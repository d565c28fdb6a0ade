import { durations, ports, urlOf } from "./config.mjs";
import { benchAddress, load, median, percentile } from "./load.mjs";

/** What a visitor without JavaScript types; every post gets a phone number of its own (see withVisitor). */
const visitor = { name: "Bench Chef", phone: "(555) 000-0000", consent: "on" };
let visitors = 0;

/**
 * The post's body with the next visitor's number, (555) 000-0001, (555) 000-0002…,
 * at the same length: real visitors are different people, and one number posted
 * over and over would time the store's "same visitor again" path.
 */
function withVisitor(post) {
  visitors += 1;
  const digits = String(visitors % 10_000_000).padStart(7, "0");
  const body = Buffer.from(post.body);
  body.write(`(555) ${digits.slice(0, 3)}-${digits.slice(3)}`, post.phoneAt, "latin1");
  return body;
}

const decode = (text) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|amp|quot|apos|lt|gt);/gi, (_, code) =>
    code[0] === "#"
      ? String.fromCodePoint(code[1].toLowerCase() === "x" ? parseInt(code.slice(2), 16) : Number(code.slice(1)))
      : { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">" }[code.toLowerCase()],
  );

/**
 * The post a browser without JavaScript sends from the sign-up form at `url`:
 * the server action's hidden `$ACTION_` inputs, in document order, then the visitor's fields.
 */
export async function preparePost(url) {
  const html = await (await fetch(url)).text();
  const form = [...html.matchAll(/<form\b[\s\S]*?<\/form>/g)]
    .map(([match]) => match)
    .find((f) => /name="phone"/.test(f));
  if (!form) throw new Error(`no form with a phone field on ${url}`);
  const data = new FormData();
  for (const [, attributes] of form.matchAll(/<input\b([^>]*)>/g)) {
    const attribute = (name) => decode(attributes.match(new RegExp(`\\b${name}="([^"]*)"`))?.[1] ?? "");
    if (attribute("type") === "hidden" && attribute("name").startsWith("$ACTION_"))
      data.append(attribute("name"), attribute("value"));
  }
  if (![...data.keys()].length)
    throw new Error(`the form on ${url} has no $ACTION_ inputs: is it still a server-action form?`);
  for (const [name, value] of Object.entries(visitor)) data.append(name, value);
  // Request serialises FormData exactly as fetch would send it, boundary included.
  const request = new Request(url, { method: "POST", body: data });
  const body = Buffer.from(await request.arrayBuffer());
  return {
    url,
    body,
    phoneAt: body.indexOf(visitor.phone, 0, "latin1"),
    contentType: request.headers.get("content-type"),
  };
}

// What a browser sends along; Next compares Origin with Host before running an action.
const headersFor = (post) => ({
  "content-type": post.contentType,
  origin: new URL(post.url).origin,
  accept: "text/html",
});
// A sign-up that went through ends in a 303 to its result page (post/redirect/get); `follow` goes there as a browser does.
const send = (post, n, redirect = "manual") =>
  fetch(post.url, {
    method: "POST",
    headers: { ...headersFor(post), "x-forwarded-for": benchAddress(n) },
    body: withVisitor(post),
    redirect,
  });
const receiverStats = async () => (await fetch(urlOf(ports.receiver, "/__stats"))).json();

/** The receiver's count once the posts in flight when a load stopped have arrived. */
async function settledDeliveries() {
  for (let last = -1, deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
    const now = (await receiverStats()).deliveries;
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}

/** Posts the sign-up once: the app must send it on to the result page, and the receiver get the lead. */
export async function checkPost(post) {
  const before = (await receiverStats()).deliveries;
  const response = await send(post, 0, "follow");
  const html = await response.text();
  const problems = [];
  if (response.status !== 200) problems.push(`answered HTTP ${response.status}, expected 200`);
  if (!response.redirected) problems.push("was not sent on to a result page (post/redirect/get)");
  // React escapes the apostrophe of "You're".
  if (!html.includes("on the waitlist!")) problems.push(`the answer does not say "You're on the waitlist!"`);
  const delivered = (await settledDeliveries()) - before;
  if (delivered !== 1) problems.push(`the receiver got ${delivered} POSTs, expected 1`);
  return { ok: problems.length === 0, problems };
}

/** Posts one after another, so that the receiver's n-th handling time belongs to the n-th post and comes off it. */
async function latency(post) {
  for (let i = 0; i < 10; i += 1) await (await send(post, i)).arrayBuffer();
  await settledDeliveries();
  const before = (await receiverStats()).deliveries;
  const totals = [];
  for (let i = 1; i <= durations.sequentialPosts; i += 1) {
    const started = performance.now();
    const response = await send(post, i);
    await response.arrayBuffer();
    totals.push(performance.now() - started);
    // 303 to the result page; a baseline built before post/redirect/get answers 200 with the page.
    if (response.status !== 303 && response.status !== 200)
      throw new Error(`post ${i} answered HTTP ${response.status}`);
  }
  const handling = (await receiverStats()).handlingMs.slice(before);
  if (handling.length !== totals.length) throw new Error(`${totals.length} posts made ${handling.length} deliveries`);
  const added = totals.map((total, i) => total - handling[i]);
  return { addedP50Ms: percentile(added, 50), addedP99Ms: percentile(added, 99), totalP50Ms: percentile(totals, 50) };
}

/** Sign-ups per second under load, each request from its own address and number; 2xx only. */
function throughput(post, duration = durations.signupLoad) {
  const setupRequest = (request) => {
    const body = withVisitor(post);
    return { ...request, body, headers: { ...request.headers, "x-forwarded-for": benchAddress(visitors) } };
  };
  return load({
    url: post.url,
    method: "POST",
    duration,
    headers: headersFor(post),
    requests: [{ setupRequest }],
    redirects: true,
  });
}

/**
 * The no-JavaScript sign-up of this build, and of the baseline when there is
 * one, each warmed first (not counted): the sequential latency, then blocks of
 * short loads in the order this, before, before, this, so that a machine that
 * speeds up or slows down weighs on both alike; each rate is its loads' median.
 */
export async function measureSignups(post, before, log) {
  const builds = before ? [post, before] : [post];
  for (const build of builds) await throughput(build, durations.signupWarmup);
  const latencies = [];
  for (const build of builds) latencies.push(await latency(build));
  const loads = new Map(builds.map((build) => [build, []]));
  for (let block = 1; block <= durations.signupBlocks; block += 1) {
    for (const build of before ? [post, before, before, post] : [post]) loads.get(build).push(await throughput(build));
    log(
      `sign-up block ${block}/${durations.signupBlocks}: ${builds
        .map((build) =>
          loads
            .get(build)
            .map((l) => l.perSecond.toFixed(0))
            .join(" "),
        )
        .join(" | ")}`,
    );
  }
  const combine = (results) => ({
    perSecond: median(results.map((result) => result.perSecond)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    non2xx: results.reduce((sum, result) => sum + result.non2xx + result.errors, 0),
  });
  return builds.map((build, i) => ({ ...latencies[i], ...combine(loads.get(build)) }));
}
