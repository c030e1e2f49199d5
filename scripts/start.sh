#!/usr/bin/env bash
# npm start: install what is missing, bring up Temporal and MySQL, build, migrate, make sure a development
# API key exists, then run the API and the worker until Ctrl-C, starting again whichever exits once they are
# up (scripts/lib/supervise.sh); one that exits during start-up stops them both.
# Settings (besides those of scripts/lib/*.sh): API_PORT (3000), API_START_TIMEOUT (seconds, 60), WORKER_HEAP_MB
# (256, the worker's V8 heap bound), RESTART_BACKOFF_MAX_SECONDS (30, the longest wait before a restart), and
# the model provider's OPENAI_BASE_URL, OPENAI_API_KEY and DEFAULT_MODEL, passed through to the worker.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/bring-up.sh"
source "$STEPWISE_ROOT/scripts/lib/supervise.sh"

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
# Two malloc arenas, not glibc's eight per core: the Temporal core's and libuv's threads otherwise each grow
# their own, and a worker's resident memory with them (BENCHMARKS.md, session 9).
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
launch_api() { node dist/apps/api/src/main.js </dev/null & }
# The worker's heap bound: V8 otherwise lets garbage grow to hundreds of MB before a full collection.
launch_worker() { node --max-old-space-size="${WORKER_HEAP_MB:-256}" dist/apps/worker/src/main.js </dev/null & }
supervise api worker

api_healthy() { node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$api_url/health/ready"; }
health=0
wait_until "${API_START_TIMEOUT:-60}" "the API" "$(supervised_pids)" api_healthy || health=$?
if [ -z "$stopping" ] && (( health == 2 )); then
  start_failed || end_supervision $?
elif [ -z "$stopping" ] && (( health == 0 )); then
  say "API:          $api_url"
  say "OpenAPI page: http://127.0.0.1:$API_PORT/api/docs"
  say "Temporal UI:  $TEMPORAL_UI_URL (your runs decoded: open http://127.0.0.1:$API_PORT/temporal-ui once and type your key)"
  say "Temporal and MySQL keep running in the background when this stops (Ctrl-C stops the API and the worker)."
elif [ -z "$stopping" ]; then
  say "the API is not ready at $api_url/health/ready after ${API_START_TIMEOUT:-60}s; still waiting on it and the worker"
fi

# From here on a process that exits is started again (scripts/lib/supervise.sh): the API as the worker,
# as compose restarts both; only Ctrl-C, SIGTERM or the parent going away ends the run.
keep_running
end_supervision
