#!/usr/bin/env bash
# npm run bench:scale-out [-- --workers 1,2,4 --concurrency 50 --seconds 8]: single-step runs/s, latency and each
# component's CPU per run against a real Temporal server (not the dev server): its Go module built once into
# the cache folder (server and SQL tool, minutes of CPU the first time), on PostgreSQL, with 1, 2 and 4
# workers behind two APIs (bench/scale-out.ts). The same MySQL bring-up as npm run bench (stepwise_bench).
# Settings: SCALE_OUT_PG_HOST (127.0.0.1), SCALE_OUT_PG_PORT (5432), SCALE_OUT_PG_USER (postgres),
# SCALE_OUT_PG_PASSWORD (empty), SCALE_OUT_PG_DB (stepwise_temporal; emptied first, and its _visibility
# twin), SCALE_OUT_PORT (17233: the server's frontend; its other services take the next ports and 16933+).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/bring-up.sh"

TEMPORAL_SERVER_VERSION=v1.29.1 # the server the CLI's dev server embeds
PG_HOST="${SCALE_OUT_PG_HOST:-127.0.0.1}" PG_PORT="${SCALE_OUT_PG_PORT:-5432}"
PG_USER="${SCALE_OUT_PG_USER:-postgres}" PG_PASSWORD="${SCALE_OUT_PG_PASSWORD:-}" PG_DB="${SCALE_OUT_PG_DB:-stepwise_temporal}"
PORT="${SCALE_OUT_PORT:-17233}"
SERVER="$STEPWISE_CACHE_DIR/bin/temporal-server-$TEMPORAL_SERVER_VERSION"
SQL_TOOL="$STEPWISE_CACHE_DIR/bin/temporal-sql-tool-$TEMPORAL_SERVER_VERSION"

if [ ! -x "$SERVER" ] || [ ! -x "$SQL_TOOL" ]; then
  go="$(go_binary)"
  [ -n "$go" ] || die "building the Temporal server needs Go (1.24+)"
  say "building Temporal Server $TEMPORAL_SERVER_VERSION and its SQL tool into $STEPWISE_CACHE_DIR/bin (once: minutes of CPU)"
  built="$(mktemp -d)"
  GOBIN="$built" GOFLAGS=-mod=mod "$go" install "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" \
    "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION" </dev/null >&2 || die "go install of the Temporal server failed"
  mkdir -p "$STEPWISE_CACHE_DIR/bin"
  mv "$built/server" "$SERVER" && mv "$built/sql" "$SQL_TOOL" && rmdir "$built"
fi
schemas="$("$(go_binary)" env GOMODCACHE)/go.temporal.io/server@$TEMPORAL_SERVER_VERSION/schema/postgresql/v12"
[ -d "$schemas" ] || die "no schema folder at $schemas (the Go module cache was cleaned: remove $SERVER and run again)"

bring_up stepwise_bench
build

sql_tool() { "$SQL_TOOL" --plugin postgres12 --ep "$PG_HOST" -p "$PG_PORT" -u "$PG_USER" --pw "$PG_PASSWORD" "$@" >/dev/null 2>&1; }
for part in temporal visibility; do
  db="$PG_DB" && [ "$part" = visibility ] && db="${PG_DB}_visibility"
  say "PostgreSQL database $db: emptied, schema $part"
  sql_tool --db "$db" drop-database --force 2>/dev/null || true
  sql_tool --db "$db" create-database || die "could not create database $db at $PG_HOST:$PG_PORT as $PG_USER"
  sql_tool --db "$db" setup-schema -v 0.0 && sql_tool --db "$db" update-schema -d "$schemas/$part/versioned" \
    || die "could not set up the $part schema in $db"
done

dir="$STEPWISE_DATA_DIR/scale-out"
mkdir -p "$dir/config/dynamicconfig"
store() {
  cat <<YAML
      sql:
        pluginName: postgres12
        databaseName: "$1"
        connectAddr: "$PG_HOST:$PG_PORT"
        connectProtocol: tcp
        user: "$PG_USER"
        password: "$PG_PASSWORD"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: 1h
YAML
}
service() {
  printf '  %s:\n    rpc:\n      grpcPort: %s\n      membershipPort: %s\n      bindOnLocalHost: true\n' "$1" "$2" "$3"
}
{
  printf 'log:\n  stdout: true\n  level: warn\n'
  printf 'persistence:\n  defaultStore: default\n  visibilityStore: visibility\n  numHistoryShards: 4\n  datastores:\n'
  printf '    default:\n' && store "$PG_DB" 20
  printf '    visibility:\n' && store "${PG_DB}_visibility" 4
  printf 'global:\n  membership:\n    maxJoinDuration: 30s\n    broadcastAddress: "127.0.0.1"\n'
  printf 'services:\n'
  service frontend "$PORT" $((PORT - 300)) && printf '      httpPort: %s\n' $((PORT + 10))
  service history $((PORT + 1)) $((PORT - 299))
  service matching $((PORT + 2)) $((PORT - 298))
  service worker $((PORT + 6)) $((PORT - 294))
  printf 'clusterMetadata:\n  enableGlobalNamespace: false\n  failoverVersionIncrement: 10\n  masterClusterName: active\n'
  printf '  currentClusterName: active\n  clusterInformation:\n    active:\n      enabled: true\n      initialFailoverVersion: 1\n'
  printf '      rpcName: frontend\n      rpcAddress: "127.0.0.1:%s"\n' "$PORT"
  printf 'dcRedirectionPolicy:\n  policy: noop\n'
  printf 'dynamicConfigClient:\n  filepath: "%s"\n  pollInterval: 10s\n' "$dir/config/dynamicconfig/development.yaml"
} >"$dir/config/development.yaml"
# As the dev server runs (scripts/lib/temporal.sh), and no rate limit of the frontend in the way.
cat >"$dir/config/dynamicconfig/development.yaml" <<'YAML'
history.transferProcessorMaxPollRPS:
  - value: 10000
system.enableActivityEagerExecution:
  - value: true
frontend.rps:
  - value: 100000
frontend.namespaceRPS:
  - value: 100000
YAML

log="$dir/temporal-server.log"
say "starting Temporal Server $TEMPORAL_SERVER_VERSION on 127.0.0.1:$PORT (log $log)"
"$SERVER" --root "$dir" --config config --env development --allow-no-auth start >>"$log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT
cli="$(find_temporal_cli)"
wait_until 120 "Temporal Server at 127.0.0.1:$PORT" "$server_pid" temporal_healthy "$cli" "127.0.0.1:$PORT" \
  || { tail -n 20 "$log" >&2; die "the Temporal server did not start (log above)"; }
ensure_namespace "$cli" "127.0.0.1:$PORT"
# A new namespace reaches the frontend's cache within seconds.
namespace_known() { timeout 10 "$cli" operator search-attribute list --address "127.0.0.1:$PORT" --namespace "$TEMPORAL_NAMESPACE" -o json; }
wait_until 60 "namespace $TEMPORAL_NAMESPACE" "$server_pid" namespace_known || die "namespace $TEMPORAL_NAMESPACE never answered"
ensure_search_attributes "$cli" "127.0.0.1:$PORT"

TEMPORAL_ADDRESS="127.0.0.1:$PORT" TEMPORAL_SERVER_PID="$server_pid" node dist/bench/scale-out.js "$@"
