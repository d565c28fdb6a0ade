#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
# TEST_PART picks what one of CI's two Node lines runs (docs/testing.md,
# "CI's two Node lines"): `pages` (lint, types, unit, the production build,
# the pages' browser specs with JavaScript on and off, and the specs of n8n
# 2.x, which runs on its own Node whatever runs the tests), `server` (unit and
# the other specs that start servers: n8n 1.x, Postgres, Redis, SQLite, the
# app's own process). Unset: everything, as a developer runs it.
#
# With SOUS_REPORT_DIR set (.ci/run sets it), each step's name, time and
# command go to steps.tsv there, each step under way to current-step-PART-STEP, and the
# unit and browser runners write JSON reports beside them, so .ci/run can end
# by naming what failed and what needed a retry (.ci/report.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
part="${TEST_PART:-all}"
case "$part" in
  all | pages | server) ;;
  *)
    echo "TEST_PART is \"$part\": pages, server, or unset for everything" >&2
    exit 2
    ;;
esac
echo "npm test: $part"
report="${SOUS_REPORT_DIR:-}"

# step NAME COMMAND...: runs COMMAND, noted (when reporting) as it starts and with its time once it passed.
step() {
  local name="$1"
  shift
  local began=$SECONDS
  if [[ -n $report ]]; then printf '%s\t%s\n' "$part: $name" "$*" >"$report/current-step-$part-${name// /-}"; fi
  "$@"
  if [[ -n $report ]]; then printf '%s\t%s\t%s\n' "$part: $name" "$((SECONDS - began))" "$*" >>"$report/steps.tsv"; fi
}

unit=()
e2e=()
if [[ -n $report ]]; then
  unit=(--reporter=default --reporter=json "--outputFile.json=$report/unit-$part.json")
  export E2E_JSON_REPORT="$report/e2e-$part.json"
fi

step "system packages" bash tests/support/ensure-system-deps.sh
if [[ $part != server ]]; then
  step lint npm run lint
  step types npm run typecheck
fi
step "unit tests" npm run test:unit -- "${unit[@]}"
if [[ $part != server ]]; then
  # The production build, made once with the browser specs' webhook addresses
  # set (so the specs prove they stay out of it), checked for test routes and
  # for the compile hint on its start-up chunks; every browser spec then serves
  # it. E2E_REUSE_BUILD=1: it is there already (CI makes it before both lines).
  if [[ ${E2E_REUSE_BUILD:-} != 1 ]]; then step build node --import tsx tests/support/build-e2e.ts; fi
  step "production build's checks" node --import tsx tests/support/check-production-build.ts
  export E2E_REUSE_BUILD=1
fi
if [[ $part != pages ]]; then
  # Every n8n line the server specs start, installed before any worker starts:
  # two workers never install one at once (instant when the cache has them).
  step "n8n lines" node --import tsx tests/support/ensure-n8n-lines.ts
fi
case "$part" in
  # n8n 2.x's specs first, so the longest serial file does not start last; a
  # line whose n8n is still being installed (.ci/run installs it beside) waits
  # for that install's lock (tests/support/n8n-server.ts).
  pages) e2e=(--project n8n-current --project js-on --project js-off) ;;
  # Three workers for the server specs on CI's two cores: they mostly wait on
  # real time (a pace, a schedule, n8n's restarts), not on the processor
  # (docs/testing.md, "Real time").
  server)
    e2e=(--project n8n-older --project server-long --project server)
    if [[ -n ${CI:-} ]]; then e2e+=(--workers 3); fi
    ;;
esac
step "browser specs" npm run test:e2e -- "${e2e[@]}"
