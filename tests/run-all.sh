#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tests/support/ensure-system-deps.sh
npm run lint
npm run typecheck
npm run test:unit
# The production build, checked for test routes and for the compile hint on
# its start-up chunks; the browser tests then make their own build, with the
# test fixtures, in .next-e2e.
npm run build
node --import tsx tests/support/check-production-build.ts
npm run test:e2e
