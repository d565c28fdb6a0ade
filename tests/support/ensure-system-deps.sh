#!/usr/bin/env bash
# Installs the system programs the tests need when they are missing: Chromium's
# headless shell for the browser tests (Playwright's own download is not used),
# redis-server and Postgres, which the tests start and stop themselves, and
# Java for the HTML checker (the vnu-jar npm package ships only its jar).
# Debian/Ubuntu only, as root or through sudo; elsewhere it says what to install.
set -euo pipefail

# The specs' browser: Chromium's headless shell (tests/e2e/e2e-env.ts), unless CHROMIUM_PATH names another.
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}"
missing=()
[ -x "$chromium_path" ] || missing+=(chromium-headless-shell)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)

[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing: ${missing[*]}. Install them (CHROMIUM_PATH may point at any Chromium or Chrome)." >&2
  exit 1
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing ${missing[*]} with apt-get..."
$sudo apt-get update -qq
# Debian's postgresql package starts a cluster of its own on port 5432; the
# tests never use it (each starts its own on a free port).
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
