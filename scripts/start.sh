#!/usr/bin/env bash
# npm start: install what is missing, bring up Temporal and MySQL, build, migrate, make sure a development
# API key exists, then run the API and the worker until either stops or Ctrl-C.
# Settings (besides those of scripts/lib/*.sh): API_PORT (3000), API_START_TIMEOUT (seconds, 60), WORKER_HEAP_MB
# (256, the worker's V8 heap bound), and the
# model provider's OPENAI_BASE_URL, OPENAI_API_KEY and DEFAULT_MODEL, passed through to the worker.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/bring-up.sh"

started=$SECONDS
bring_up stepwise
build
for entry in dist/apps/api/src/main.js dist/apps/worker/src/main.js dist/libs/persistence/src/cli/migrate.js dist/apps/api/src/cli/api-key.js; do
  [ -f "$entry" ] || die "$entry is missing after the build: is its source (${entry#dist/}, as .ts) in the checkout?"
done
node dist/libs/persistence/src/cli/migrate.js </dev/null >&2 || die "the migrations failed"
node dist/apps/api/src/cli/api-key.js ensure-dev-key </dev/null || die "could not make sure a development API key exists"

export API_PORT="${API_PORT:-3000}" TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://127.0.0.1:8233}"
api_url="http://127.0.0.1:$API_PORT/api/v1"
say "ready to start after $(( SECONDS - started ))s; starting the API and the worker"
api="" worker="" stopping=""
stop_children() {  # $1: the signal to send
  stopping="$1"
  kill -s "$1" $api $worker 2>/dev/null || true
}
trap 'stop_children INT' INT
trap 'stop_children TERM' TERM
# Two malloc arenas, not glibc's eight per core: the Temporal core's and libuv's threads otherwise each grow
# their own, and a worker's resident memory with them (BENCHMARKS.md, session 9).
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
node dist/apps/api/src/main.js </dev/null & api=$!
# The worker's heap bound: V8 otherwise lets garbage grow to hundreds of MB before a full collection.
node --max-old-space-size="${WORKER_HEAP_MB:-256}" dist/apps/worker/src/main.js </dev/null & worker=$!

api_healthy() { node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$api_url/health/ready"; }
health=0
wait_until "${API_START_TIMEOUT:-60}" "the API" "$api" api_healthy || health=$?
if [ -z "$stopping" ] && (( health == 0 )); then
  say "API:          $api_url"
  say "OpenAPI page: http://127.0.0.1:$API_PORT/api/docs"
  say "Temporal UI:  $TEMPORAL_UI_URL"
  say "Temporal and MySQL keep running in the background when this stops (Ctrl-C stops the API and the worker)."
elif [ -z "$stopping" ] && (( health == 1 )); then
  say "the API is not ready at $api_url/health/ready after ${API_START_TIMEOUT:-60}s; still waiting on it and the worker"
fi

# Whichever child exits first, a signal, or the parent going away ends the run; the other child is stopped,
# gently then firmly. (`npm start` runs this under `sh -c`, which dies on SIGTERM without passing it on:
# hence the parent check rather than a plain `wait -n`.)
parent=$PPID
while [ -z "$stopping" ] && pid_alive "$api" && pid_alive "$worker"; do
  if ! pid_alive "$parent"; then say "the parent process went away: stopping the API and the worker"; stop_children TERM; fi
  sleep 1 & wait $! 2>/dev/null || true
done
status=0
if [ -z "$stopping" ]; then
  if pid_alive "$api"; then
    wait "$worker" || status=$?; say "the worker exited (status $status): stopping the API"
  else
    wait "$api" || status=$?; say "the API exited (status $status): stopping the worker"
  fi
  stop_children TERM
  stopping="exit"
fi
deadline=$(( SECONDS + 30 ))
while { pid_alive "$api" || pid_alive "$worker"; } && (( SECONDS < deadline )); do sleep 0.2; done
kill -s KILL "$api" "$worker" 2>/dev/null || true
# Only the API and the worker: a Temporal dev server started by this script runs on in the background.
wait "$api" "$worker" 2>/dev/null || true
case "$stopping" in
  INT) exit 130 ;;
  TERM) exit 143 ;;
  *) exit $(( status == 0 ? 1 : status )) ;;  # a child that stops on its own is a failure of the run
esac
