#!/usr/bin/env bash
# `npm run test:mutation:parts [-- N ...]`: the whole run of stryker.config.mjs
# (all of server/ and lib/forms/) in seven parts of a few folders each, run one
# after the other or only those named (1-7; server-top is the files at server/'s
# top), each part's report kept under
# reports/parts/COMMIT/N.json; then the score of every part kept for this
# commit, together (tests/mutation/folders.mjs). A mutant's result depends only
# on the code and the tests, so the parts of one commit make its whole run,
# whether they ran in one sitting or several (tests/MUTATION.md). Refuses a
# checkout whose code or tests differ from its commit: the parts would not be
# of one commit.
set -euo pipefail
cd "$(dirname "$0")/../.."

parts=(
  ""
  "server/console"
  "server/operators server/invitations"
  "server/consent server/db"
  "server/outbox"
  "server/forms"
  "server/ops"
  "server/web lib/forms server-top"
)

if [ -n "$(git status --porcelain -- server lib tests vitest.config.mts stryker.config.mjs package-lock.json)" ]; then
  echo "The code or the tests differ from $(git rev-parse --short HEAD): commit them first." >&2
  exit 1
fi
# Every folder of server/ in a part, so the seven are the whole run.
for folder in server/*/; do
  folder="${folder%/}"
  [[ " ${parts[*]} " == *" $folder "* ]] || { echo "$folder is in no part: add it to one (tests/mutation/parts.sh)." >&2; exit 1; }
done
commit="$(git rev-parse --short HEAD)"
kept="reports/parts/$commit"
mkdir -p "$kept"

# The globs of a part, as the whole run's `mutate` names them (test files left out).
globs() {
  local list=()
  for folder in $1; do
    if [ "$folder" = "server-top" ]; then
      list+=("server/*.ts" "server/escape-controls.mjs" "server/framework-log.mjs")
    else
      list+=("$folder/**/*.ts")
    fi
  done
  list+=("!**/*.test.ts")
  local IFS=,
  printf '%s' "${list[*]}"
}

wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(1 2 3 4 5 6 7)
for n in "${wanted[@]}"; do
  [[ "$n" =~ ^[1-7]$ ]] || { echo "No part $n: the parts are 1 to 7." >&2; exit 1; }
  echo "== Part $n of 7 at $commit: ${parts[$n]}"
  began=$(date +%s)
  # A part under the bars still has its report kept: the bars judge the whole.
  rm -f reports/mutation/mutation.json
  bash tests/mutation/run.sh --mutate "$(globs "${parts[$n]}")" || true
  [ -f reports/mutation/mutation.json ] || { echo "Part $n wrote no report: see Stryker's lines above." >&2; exit 1; }
  cp reports/mutation/mutation.json "$kept/$n.json"
  echo "== Part $n took $(($(date +%s) - began)) s"
done

shopt -s nullglob
done_parts=("$kept"/*.json)
echo "== The parts kept for $commit: $(basename -a "${done_parts[@]}" | sed 's/\.json//' | sort -n | paste -sd' ') of 1-7"
node tests/mutation/folders.mjs "${done_parts[@]}"
