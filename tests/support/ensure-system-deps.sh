#!/usr/bin/env bash
# Installs the system programs the tests need when they are missing: Chromium's
# headless shell for the browser tests (Playwright's own download is not used),
# redis-server and Postgres, which the tests start and stop themselves, Java
# for the HTML checker (the vnu-jar npm package ships only its jar), and nginx
# and Caddy, which the SMS specs start with docs/sms-workflow.md's two proxy
# examples in front of n8n (tests/support/proxy-examples.ts).
# Debian/Ubuntu only, as root or through sudo; elsewhere it says what to install.
set -euo pipefail

# The specs' browser: Chromium's headless shell (tests/e2e/e2e-env.ts), unless CHROMIUM_PATH names another.
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}"
missing=()
[ -x "$chromium_path" ] || missing+=(chromium-headless-shell)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)

[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing: ${missing[*]}. Install them (CHROMIUM_PATH may point at any Chromium or Chrome)." >&2
  exit 1
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing ${missing[*]} with apt-get..."
$sudo apt-get update -qq
# Debian's postgresql, nginx and caddy packages would start a service of their
# own (a cluster on port 5432, a web server on port 80); the tests never use
# them (each starts its own on a free port), so a policy keeps the packages'
# services from starting while they install (invoke-rc.d's 101: action not
# allowed), and goes after.
policy=/usr/sbin/policy-rc.d
own_policy=""
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  own_policy=1
fi
status=0
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
[ -z "$own_policy" ] || $sudo rm -f "$policy"
exit "$status"
