#!/usr/bin/env bash
# What `npm test` (and `npm run bench`) need besides the Node packages: Node.js 24 or newer and
# some Debian packages. Before every `npm test` (the pretest script) it only checks, and names
# what is missing and how to install it. With --install (.ci/run, as root) it installs the
# missing Debian packages with apt-get instead.
set -euo pipefail

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 24 ]; then
  echo "system-deps: Node.js $(node -v) is older than 24 (package.json engines); install Node 24, or run \`source scripts/node24.sh\` to fetch it from the npm registry" >&2
  exit 1
fi

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

if [ "${1:-}" = --install ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi

echo "system-deps: missing Debian packages: ${missing[*]}" >&2
echo "system-deps: install them with: sudo apt-get install -y ${missing[*]}" >&2
exit 1
