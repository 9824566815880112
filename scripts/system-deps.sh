#!/usr/bin/env bash
# The Debian packages `npm test` (and `npm run bench`) need besides Node. Runs before every
# `npm test` (the pretest script) and from .ci/run: when something is missing it installs it
# with apt-get if it may (root, apt-get present), otherwise it names what to install and fails.
set -euo pipefail

# package name → the file or command that shows it is installed
declare -A probe=(
  [redis-server]="cmd:redis-server"                                  # Upstash stand-in, rate-limit contract tests
  [chromium]="file:${CHROMIUM_PATH:-/usr/bin/chromium}"               # browser tests (playwright-core)
  [postgresql-15]="file:${PG_BIN:-/usr/lib/postgresql/15/bin}/initdb" # hosted test project on a real PostgreSQL
  [nginx]="cmd:nginx"                                                 # bench: a static-file baseline
  [wrk]="cmd:wrk"                                                     # bench: load generator
  [curl]="cmd:curl"                                                   # MCP e2e: deploy_directory's curl command runs in a shell
  [unzip]="cmd:unzip"                                                 # bench: a zip deploy against unzip -q
)

missing=()
for pkg in redis-server chromium postgresql-15 nginx wrk curl unzip; do
  kind="${probe[$pkg]%%:*}"
  target="${probe[$pkg]#*:}"
  if [ "$kind" = cmd ]; then
    command -v "$target" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$target" >/dev/null 2>&1 || missing+=("$pkg")
  else
    [ -x "$target" ] || missing+=("$pkg")
  fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi

echo "system-deps: missing Debian packages: ${missing[*]}" >&2
echo "system-deps: install them with: sudo apt-get install -y ${missing[*]}" >&2
exit 1
