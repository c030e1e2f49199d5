# Shared settings and helpers for the bring-up scripts. Sourced by scripts/*.sh, never run on its own.
# Every message goes to stderr with a "[stepwise] " prefix, so a command's own output (an API key, the
# test summary line) stays alone on stdout.

if [ -z "${BASH_VERSINFO[0]:-}" ] || (( BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 3) )); then
  echo "[stepwise] error: these scripts need bash 4.3 or newer (found ${BASH_VERSION:-no bash})" >&2
  exit 1
fi

STEPWISE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STEPWISE_DATA_DIR="${STEPWISE_DATA_DIR:-$STEPWISE_ROOT/.data}"
STEPWISE_CACHE_DIR="${STEPWISE_CACHE_DIR:-$HOME/.cache/stepwise}"
mkdir -p "$STEPWISE_DATA_DIR"
STEPWISE_DATA_DIR="$(cd "$STEPWISE_DATA_DIR" && pwd)"  # absolute: servers are started from other folders
cd "$STEPWISE_ROOT" || exit 1

say() { printf '[stepwise] %s\n' "$*" >&2; }
die() { printf '[stepwise] error: %s\n' "$*" >&2; exit 1; }

# `detach COMMAND... &` runs a background server in its own session (setsid), so that Ctrl-C on `npm start`
# does not reach it; exec keeps $! the server's pid. Only ever call it with &.
detach() {
  if command -v setsid >/dev/null 2>&1; then exec setsid nohup "$@"; else exec nohup "$@"; fi
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# wait_until DEADLINE_SECONDS DESCRIPTION PIDS_OR_EMPTY COMMAND...: polls COMMAND until it succeeds. Fails
# at the deadline (1), or at once if one of PIDS (the servers being waited for, space-separated) has exited (2).
wait_until() {
  local deadline="$1" what="$2" pids="$3" pid; shift 3
  local start=$SECONDS
  until "$@" >/dev/null 2>&1; do
    for pid in $pids; do pid_alive "$pid" || return 2; done
    if (( SECONDS - start >= deadline )); then return 1; fi
    sleep 0.5
  done
  say "$what is up ($(( SECONDS - start ))s)"
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

require_node() {
  command -v node >/dev/null 2>&1 || die "Node.js 20.19 or newer is needed (https://nodejs.org); node is not on PATH"
  command -v npm >/dev/null 2>&1 || die "npm is needed and is not on PATH"
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)' \
    || die "Node.js 20.19 or newer is needed, found $(node --version)"
}

# Installs from the lock file when node_modules is missing or older than it. `npm install`, not `npm ci`:
# registries that mirror only this platform's optional binaries (swc, resolvers) make `npm ci` refuse the
# lock file, while `npm install` leaves it unchanged and installs the same versions.
ensure_node_modules() {
  require_node
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm dependencies from package-lock.json: node_modules is missing or older than it"
    npm install --no-audit --no-fund --loglevel=error </dev/null >&2 || die "npm install failed"
  fi
}

# swc compiles apps/ and libs/ to dist/ in about a second, so every command builds.
build() {
  say "building (swc -> dist/)"
  npm run --silent build </dev/null >&2 || die "the build failed (npm run build)"
}

# ENCRYPTION_KEYS seals secrets at rest and Temporal payloads. When it is not set, a key of this checkout's
# own is made once in the data folder (readable by its owner only) and used from then on.
ensure_encryption_keys() {
  [ -n "${ENCRYPTION_KEYS:-}" ] && return
  local file="$STEPWISE_DATA_DIR/encryption-keys"
  if [ ! -s "$file" ]; then
    (umask 077; node -e 'console.log("local1:" + require("node:crypto").randomBytes(32).toString("base64"))' >"$file") \
      || die "could not write $file"
    say "made an encryption key in $file (set ENCRYPTION_KEYS to use your own)"
  fi
  ENCRYPTION_KEYS="$(cat "$file")"
  export ENCRYPTION_KEYS
}
