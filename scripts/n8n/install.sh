#!/usr/bin/env bash
# The toolchain of the real-n8n tests: Node 24, n8n 2.41.1, n8n's node CLI and scanner, and the
# n8n-workflow of that n8n, installed from the npm registry into one cache folder that is reused
# between runs. Each part is marked done only once it works, so an interrupted install resumes.
#
# Prints the cache folder on its last line. Env: N8N_TEST_CACHE (the folder), N8N_VERSION.
# `--tools` installs only Node 24 and the package tooling (what `npm run build:n8n` needs, about
# a minute), not n8n itself (what the real-n8n tests need, several minutes and gigabytes).
set -euo pipefail

TOOLS_ONLY=false
[ "${1:-}" = --tools ] && TOOLS_ONLY=true

N8N_VERSION=${N8N_VERSION:-2.41.1}
# The n8n-workflow that n8n $N8N_VERSION depends on: the staging build compiles against it.
N8N_WORKFLOW_VERSION=${N8N_WORKFLOW_VERSION:-2.41.0}
NODE_MAJOR=24
CACHE=${N8N_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-lms/n8n-$N8N_VERSION-node-$NODE_MAJOR}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# One install at a time per cache: CI starts this script in the background while the other suites
# run, and the real-n8n suite's global setup runs it again; the second waits for the first.
exec 9>"$CACHE/.lock"
flock 9
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
export npm_config_loglevel=error npm_config_yes=true

say() { printf '[n8n toolchain %ss] %s\n' "$SECONDS" "$*" >&2; }
done_mark() { [ -f "$CACHE/.done-$1" ]; }
mark_done() { touch "$CACHE/.done-$1"; }

# 1. Node 24. The `node` package ships bin/node and include/node (node-gyp needs the headers, and
# the machine's npm config points at Node 20's, while nodejs.org is not reachable).
if ! done_mark node; then
  say "installing Node $NODE_MAJOR"
  rm -rf "$CACHE/node"; mkdir -p "$CACHE/node"
  echo '{"name":"lms-n8n-node","private":true}' > "$CACHE/node/package.json"
  (cd "$CACHE/node" && npm install --no-save "node@$NODE_MAJOR" >/dev/null)
fi
NODE_HOME=$(dirname "$(dirname "$(find -L "$CACHE/node/node_modules" -path '*/include/node/node.h' -print -quit)")")
NODE_HOME=$(dirname "$NODE_HOME")
[ -x "$NODE_HOME/bin/node" ] || { echo "Node $NODE_MAJOR did not install under $CACHE/node" >&2; exit 1; }
ln -sfn "$NODE_HOME" "$CACHE/node/current"
"$CACHE/node/current/bin/node" -e 'process.exit(+process.versions.node.split(".")[0] >= 22 ? 0 : 1)'
mark_done node
export PATH=$CACHE/node/current/bin:$PATH
export npm_config_nodedir=$CACHE/node/current

# 2. n8n. --ignore-scripts: an optional Kafka module's install script downloads from the internet
# and would roll the whole install back. linkedom 0.18.15 needs a package the registry lacks.
# sqlite3 is the one native module n8n needs that must be built here (its prebuilt binary comes
# from GitHub).
if ! $TOOLS_ONLY && ! done_mark n8n; then
  say "installing n8n $N8N_VERSION (about 5 minutes when cold)"
  rm -rf "$CACHE/n8n"; mkdir -p "$CACHE/n8n"
  echo '{"name":"lms-n8n-host","private":true,"overrides":{"linkedom":"0.18.14"}}' > "$CACHE/n8n/package.json"
  (cd "$CACHE/n8n" && npm install --save-exact --ignore-scripts "n8n@$N8N_VERSION" > "$CACHE/n8n-install.log" 2>&1) \
    || { tail -30 "$CACHE/n8n-install.log" >&2; exit 1; }
  (cd "$CACHE/n8n" && npm rebuild sqlite3 > "$CACHE/sqlite3-rebuild.log" 2>&1) \
    || { tail -30 "$CACHE/sqlite3-rebuild.log" >&2; exit 1; }
  (cd "$CACHE/n8n" && node -e 'require("sqlite3"); require("isolated-vm")')
  mark_done n8n
fi

# 3. n8n's own package tooling and the n8n-workflow of this n8n (the staging build compiles
# against it), in one folder so they resolve each other.
if ! done_mark tools; then
  say "installing @n8n/node-cli, @n8n/scan-community-package, n8n-workflow, typescript"
  rm -rf "$CACHE/tools"; mkdir -p "$CACHE/tools"
  echo '{"name":"lms-n8n-tools","private":true}' > "$CACHE/tools/package.json"
  (cd "$CACHE/tools" && npm install --save-exact \
     "@n8n/node-cli@0.48.3" "@n8n/scan-community-package@0.32.0" "n8n-workflow@$N8N_WORKFLOW_VERSION" "typescript@5.9.3" \
     > "$CACHE/tools-install.log" 2>&1) || { tail -30 "$CACHE/tools-install.log" >&2; exit 1; }
  [ -x "$CACHE/tools/node_modules/.bin/n8n-node" ]
  mark_done tools
fi

if $TOOLS_ONLY; then
  say "ready: $(node --version), the package tooling"
else
  # The pinned n8n-workflow must be this n8n's, or the build would check against another API.
  installed=$(node -p "require('$CACHE/n8n/node_modules/n8n-workflow/package.json').version")
  [ "$installed" = "$N8N_WORKFLOW_VERSION" ] \
    || { echo "n8n $N8N_VERSION uses n8n-workflow $installed; set N8N_WORKFLOW_VERSION=$installed" >&2; exit 1; }
  say "ready: $(node --version), n8n $(node -p "require('$CACHE/n8n/node_modules/n8n/package.json').version")"
fi
echo "$CACHE"
