#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tests/support/ensure-system-deps.sh
npm run lint
npm run typecheck
npm run test:unit
npm run test:e2e
