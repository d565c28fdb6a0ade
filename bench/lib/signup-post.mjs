import { durations, nextURL, receiverURL } from "./config.mjs";
import { benchAddress, distinctClientAddresses, load } from "./load.mjs";
import { median, percentile } from "./stats.mjs";

/**
 * What a visitor without JavaScript types into the sign-up form. Every post
 * gets its own phone number (see `withVisitor`): real visitors are different
 * people, and one number posted over and over would measure the lead store's
 * "same visitor again" path instead of a new lead.
 */
const visitor = { name: "Bench Chef", phone: "(555) 000-0000", consent: "on" };

/** Posts numbered across the whole run, so that no two posts share a phone number. */
let visitors = 0;

/**
 * The post's body with the next visitor's phone number, (555) 000-0001,
 * (555) 000-0002…, spelt at the same length so the body's size does not change.
 *
 * @param {SignupPost} post
 * @returns {Buffer}
 */
function withVisitor(post) {
  visitors += 1;
  const digits = String(visitors % 10_000_000).padStart(7, "0");
  const body = Buffer.from(post.body);
  body.write(`(555) ${digits.slice(0, 3)}-${digits.slice(3)}`, post.phoneAt, "latin1");
  return body;
}

/**
 * @typedef {object} SignupPost
 * @property {string} url
 * @property {Buffer} body          the multipart body a browser without JavaScript sends
 * @property {string} contentType   with the body's boundary
 * @property {number} phoneAt       where the phone number starts in the body
 */

/**
 * Builds the post a browser without JavaScript sends: React renders the
 * server action's reference as hidden `$ACTION_` inputs in the form, and the
 * browser posts them, in document order, before the visitor's fields.
 *
 * @param {string} path
 * @param {string} [base] the server to post to: the app, or the BENCH_BASELINE build
 * @returns {Promise<SignupPost>}
 */
export async function prepareSignupPost(path, base = nextURL) {
  const url = new URL(path, base).href;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  const html = await response.text();
  const form = [...html.matchAll(/<form\b[\s\S]*?<\/form>/g)].map(([match]) => match).find((f) => /name="phone"/.test(f));
  if (!form) throw new Error(`no form with a phone field on ${url}`);

  const data = new FormData();
  for (const [, attributes] of form.matchAll(/<input\b([^>]*)>/g)) {
    const { type, name, value = "" } = parseAttributes(attributes);
    if (type === "hidden" && name?.startsWith("$ACTION_")) data.append(name, value);
  }
  if (![...data.keys()].length) throw new Error(`the form on ${url} has no $ACTION_ inputs: is it still a server-action form?`);
  for (const [name, value] of Object.entries(visitor)) data.append(name, value);

  // Request serialises FormData exactly as fetch would send it, boundary included.
  const request = new Request(url, { method: "POST", body: data });
  const body = Buffer.from(await request.arrayBuffer());
  const phoneAt = body.indexOf(visitor.phone, 0, "latin1");
  if (phoneAt < 0) throw new Error("the phone number is not in the post's body as typed");
  return { url, body, contentType: request.headers.get("content-type") ?? "", phoneAt };
}

/**
 * Posts the sign-up once and checks the whole path: the app answers with the
 * success page and the receiver got the lead.
 *
 * @param {SignupPost} post
 * @returns {Promise<{ ok: boolean, problems: string[] }>}
 */
export async function checkSignupPost(post) {
  const before = await receiverStats();
  const response = await send(post, 0);
  const html = await response.text();
  const after = await receiverStats();

  const problems = [];
  if (response.status !== 200) problems.push(`answered HTTP ${response.status}, expected 200`);
  // React escapes the apostrophe of "You're", so match the rest of the sentence.
  if (!html.includes("on the waitlist!")) problems.push(`the answer does not say "You're on the waitlist!"`);
  if (after.deliveries !== before.deliveries + 1) {
    problems.push(`the receiver got ${after.deliveries - before.deliveries} POSTs, expected 1`);
  }
  return { ok: problems.length === 0, problems };
}

/**
 * @typedef {object} SignupLatency
 * @property {number} posts
 * @property {number} totalP50Ms    as the browser sees it
 * @property {number} totalP99Ms
 * @property {number} addedP50Ms    the same, less the receiver's own handling of each delivery
 * @property {number} addedP99Ms
 * @property {number} receiverP99Ms
 */

/**
 * Posts one after another, so that the receiver's n-th handling time belongs
 * to the n-th post and can be subtracted from it.
 *
 * @param {SignupPost} post
 * @returns {Promise<SignupLatency>}
 */
export async function measureSignupLatency(post, count = durations.sequentialPosts) {
  // The first posts load the action's modules and open the connection to the receiver.
  for (let i = 0; i < 10; i += 1) await (await send(post, i)).arrayBuffer();
  // Deliveries of an earlier load may still be arriving: they would pair with the wrong posts.
  await settledDeliveries();
  const before = await receiverStats();
  const totals = [];
  for (let i = 1; i <= count; i += 1) {
    const started = performance.now();
    const response = await send(post, i);
    await response.arrayBuffer();
    totals.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`post ${i} answered HTTP ${response.status}`);
  }
  const handling = (await receiverStats()).handlingMs.slice(before.deliveries);
  if (handling.length !== count) throw new Error(`${count} posts made ${handling.length} deliveries`);
  const added = totals.map((total, i) => total - handling[i]);
  return {
    posts: count,
    totalP50Ms: percentile(totals, 50),
    totalP99Ms: percentile(totals, 99),
    addedP50Ms: percentile(added, 50),
    addedP99Ms: percentile(added, 99),
    receiverP99Ms: percentile(handling, 99),
  };
}

/**
 * Sign-ups per second under load, counting only 2xx answers, and how many
 * leads reached the receiver meanwhile (each 2xx should be one).
 *
 * @param {SignupPost} post
 */
export async function measureSignupThroughput(post, duration = durations.signupLoad) {
  const before = await receiverStats();
  const result = await load({
    url: post.url,
    method: "POST",
    duration,
    headers: headersFor(post),
    body: post.body,
    requests: [{ setupRequest: distinctVisitors(post) }],
  });
  const deliveries = (await settledDeliveries()) - before.deliveries;
  return { ...result, deliveries };
}

/**
 * @typedef {object} SignupLoads
 * @property {number} perSecond   the median of the loads' 2xx rates
 * @property {number[]} runs      each load's rate, in the order run
 * @property {number} ok
 * @property {number} non2xx
 * @property {number} errors
 * @property {number} timeouts
 * @property {number} deliveries
 * @property {number} p50Ms       the median of the loads' p50 latencies
 * @property {number} p99Ms       the highest of the loads' p99 latencies
 */

/**
 * The no-JavaScript sign-up of this build, and of the BENCH_BASELINE build
 * when there is one, each measured warm: a sustained warm-up load first (not
 * counted), then the sequential latency, then blocks of short loads in the
 * order this, before, before, this, so that a machine that speeds up or slows
 * down weighs on both builds alike. Each build's rate is the median of its
 * loads.
 *
 * @param {SignupPost} post
 * @param {SignupPost} [before] the baseline build's post
 * @param {(message: string) => void} [log]
 */
export async function measureSignups(post, before, log = () => {}) {
  const builds = before ? [post, before] : [post];
  for (const build of builds) {
    log(`warming ${new URL(build.url).host} with ${durations.signupWarmup} s of sign-ups…`);
    await measureSignupThroughput(build, durations.signupWarmup);
  }
  const latencies = [];
  for (const build of builds) latencies.push(await measureSignupLatency(build));

  const order = before ? [post, before, before, post] : [post];
  /** @type {Map<SignupPost, Awaited<ReturnType<typeof measureSignupThroughput>>[]>} */
  const loads = new Map(builds.map((build) => [build, []]));
  for (let block = 1; block <= durations.signupBlocks; block += 1) {
    for (const build of order) loads.get(build).push(await measureSignupThroughput(build));
    log(`sign-up block ${block}/${durations.signupBlocks}: ${builds.map((build) => loads.get(build).map((l) => l.perSecond.toFixed(0)).join(" ")).join(" | ")}`);
  }
  const [latency, baselineLatency] = latencies;
  return {
    latency,
    sustained: combine(loads.get(post)),
    ...(before ? { baseline: { latency: baselineLatency, sustained: combine(loads.get(before)) } } : {}),
  };
}

/** @returns {SignupLoads} */
function combine(results) {
  const sum = (key) => results.reduce((total, result) => total + result[key], 0);
  return {
    perSecond: median(results.map((result) => result.perSecond)),
    runs: results.map((result) => result.perSecond),
    ok: sum("ok"),
    non2xx: sum("non2xx"),
    errors: sum("errors"),
    timeouts: sum("timeouts"),
    deliveries: sum("deliveries"),
    p50Ms: median(results.map((result) => result.p50Ms)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
  };
}

/** The receiver's count once the posts still in flight when the load stopped have arrived. */
async function settledDeliveries(timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let last = (await receiverStats()).deliveries;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = (await receiverStats()).deliveries;
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}

function send(post, n) {
  return fetch(post.url, {
    method: "POST",
    headers: { ...headersFor(post), "x-forwarded-for": benchAddress(n) },
    body: withVisitor(post),
  });
}

/** An autocannon setupRequest: each request from its own address, with its own phone number. */
function distinctVisitors(post) {
  const fromDistinctAddresses = distinctClientAddresses();
  return (request) => ({ ...fromDistinctAddresses(request), body: withVisitor(post) });
}

/** What a browser sends along; Next compares Origin with Host before running an action. */
function headersFor(post) {
  return { "content-type": post.contentType, origin: new URL(post.url).origin, accept: "text/html" };
}

/** @returns {Promise<{ deliveries: number, handlingMs: number[] }>} */
async function receiverStats() {
  const response = await fetch(`${receiverURL}/__stats`);
  return response.json();
}

function parseAttributes(source) {
  /** @type {Record<string, string>} */
  const attributes = {};
  for (const [, name, value] of source.matchAll(/([^\s=/]+)(?:="([^"]*)")?/g)) {
    attributes[name.toLowerCase()] = decodeEntities(value ?? "");
  }
  return attributes;
}

function decodeEntities(text) {
  const named = { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">", nbsp: "\u00a0" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, code) => {
    if (code[0] === "#") {
      const point = code[1].toLowerCase() === "x" ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return String.fromCodePoint(point);
    }
    return named[code.toLowerCase()] ?? entity;
  });
}
