# Shared settings and helpers for the bring-up scripts. Sourced, never run.
STEPWISE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STEPWISE_DATA_DIR="${STEPWISE_DATA_DIR:-$STEPWISE_ROOT/.data}"
STEPWISE_CACHE_DIR="${STEPWISE_CACHE_DIR:-$HOME/.cache/stepwise}"
mkdir -p "$STEPWISE_DATA_DIR"

say() { printf '[stepwise] %s\n' "$*" >&2; }
die() { printf '[stepwise] error: %s\n' "$*" >&2; exit 1; }

# Waits until "$@" succeeds, up to $deadline seconds.
wait_for() {
  local deadline="$1" what="$2"; shift 2
  local start=$SECONDS
  until "$@" >/dev/null 2>&1; do
    (( SECONDS - start >= deadline )) && die "$what did not come up within ${deadline}s"
    sleep 0.5
  done
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# npm ci when node_modules is missing or older than the lock file.
ensure_node_modules() {
  cd "$STEPWISE_ROOT"
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm dependencies (npm ci)"
    npm ci --no-audit --no-fund >&2
  fi
}

build() {
  cd "$STEPWISE_ROOT"
  say "building (swc -> dist/)"
  rm -rf dist
  npm run --silent build >/dev/null
}
