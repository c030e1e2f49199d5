#!/usr/bin/env bash
# npm start: install, bring up Temporal and MySQL, build, migrate, then run the API and the worker.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/temporal.sh"
source "$STEPWISE_ROOT/scripts/lib/mysql.sh"

ensure_node_modules
ensure_temporal
ensure_mysql stepwise
build
node dist/libs/persistence/src/cli/migrate.js
node dist/apps/api/src/cli/api-key.js ensure-dev-key

export API_PORT="${API_PORT:-3000}"
node dist/apps/api/src/main.js & api=$!
node dist/apps/worker/src/main.js & worker=$!
stop() { kill -TERM "$api" "$worker" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop INT TERM EXIT

say "API:          http://127.0.0.1:$API_PORT/api/v1"
say "OpenAPI page: http://127.0.0.1:$API_PORT/api/docs"
say "Temporal UI:  ${TEMPORAL_UI_URL:-(set TEMPORAL_UI_URL)}"
say "Temporal and MySQL keep running in the background after this stops."
# Whichever child exits first stops the other.
wait -n "$api" "$worker" || true
