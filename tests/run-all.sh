#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
# TEST_PART picks what one of CI's two Node lines runs (docs/testing.md,
# "CI's two Node lines"): `pages` (lint, types, unit, the production build and
# the pages' browser specs with JavaScript on and off), `server` (unit and the
# specs that start servers: n8n, Postgres, Redis, SQLite, the app's own
# process). Unset: everything, as a developer runs it.
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

bash tests/support/ensure-system-deps.sh
if [[ $part != server ]]; then
  npm run lint
  npm run typecheck
fi
npm run test:unit
if [[ $part != server ]]; then
  # The production build, checked for test routes and for the compile hint on
  # its start-up chunks; the browser tests then make their own build, with the
  # test fixtures, in .next-e2e.
  npm run build
  node --import tsx tests/support/check-production-build.ts
fi
if [[ $part != pages ]]; then
  # Every n8n line the server specs start, installed before any worker starts:
  # two workers never install one at once (instant when the cache has them).
  node --import tsx tests/support/ensure-n8n-lines.ts
fi
case "$part" in
  pages) npm run test:e2e -- --project js-on --project js-off ;;
  # Three workers for the server specs on CI's two cores: they mostly wait on
  # real time (a pace, a schedule, n8n's restarts), not on the processor
  # (docs/testing.md, "Real time").
  server)
    if [[ -n ${CI:-} ]]; then
      npm run test:e2e -- --project server --workers 3
    else
      npm run test:e2e -- --project server
    fi
    ;;
  all) npm run test:e2e ;;
esac
