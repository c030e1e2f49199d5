# Brings up Temporal: TEMPORAL_ADDRESS when set, else a `temporal server start-dev` on 127.0.0.1, reused
# when one already answers there. Sourced after common.sh; exports TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
# TEMPORAL_UI_URL and, when there is one, TEMPORAL_CLI_PATH (specs start private dev servers with it).
#
# Settings: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE (default), TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233),
# TEMPORAL_CLI_PATH, TEMPORAL_START_TIMEOUT (seconds, 60), STEPWISE_CACHE_DIR, STEPWISE_DATA_DIR.

# The newest CLI tag that `go install` accepts; it embeds Temporal Server 1.29.1 and Web UI 2.42.1.
TEMPORAL_CLI_VERSION=v1.5.1
TEMPORAL_CLI_MODULE=github.com/temporalio/cli/cmd/temporal
source "$STEPWISE_ROOT/scripts/lib/temporal-ui.sh"

go_binary() {
  if command -v go >/dev/null 2>&1; then command -v go
  elif [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go
  fi
}

# Prints the path of a temporal CLI: TEMPORAL_CLI_PATH, then PATH, then the cache folder; builds it into
# the cache folder with Go when there is none and $1 is "build".
find_temporal_cli() {
  local may_build="${1:-build}" cached="$STEPWISE_CACHE_DIR/bin/temporal" go
  if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
    [ -x "$TEMPORAL_CLI_PATH" ] || die "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file"
    echo "$TEMPORAL_CLI_PATH"; return
  fi
  if command -v temporal >/dev/null 2>&1; then command -v temporal; return; fi
  if [ -x "$cached" ]; then echo "$cached"; return; fi
  [ "$may_build" = build ] || return 0
  go="$(go_binary)"
  [ -n "$go" ] || die "no temporal CLI found (looked at TEMPORAL_CLI_PATH, PATH and $cached) and Go is not installed to build one.
  Install the CLI (brew install temporal, or a release from github.com/temporalio/cli/releases) and put it on PATH
  or set TEMPORAL_CLI_PATH; or install Go 1.24+ and run this again; or set TEMPORAL_ADDRESS to a running Temporal server."
  say "no temporal CLI on this machine: building $TEMPORAL_CLI_MODULE@$TEMPORAL_CLI_VERSION into $STEPWISE_CACHE_DIR/bin"
  say "  (first time only: about 290 s on 2 cores and 1.8 GB of Go module cache; it gives Temporal Server 1.29.1"
  say "   and Web UI 2.42.1 in one binary, and later clones and CI runs reuse it from the cache folder)"
  mkdir -p "$STEPWISE_CACHE_DIR/bin"
  local start=$SECONDS
  GOBIN="$STEPWISE_CACHE_DIR/bin" "$go" install "$TEMPORAL_CLI_MODULE@$TEMPORAL_CLI_VERSION" </dev/null >&2 \
    || die "go install $TEMPORAL_CLI_MODULE@$TEMPORAL_CLI_VERSION failed"
  say "built $cached in $(( SECONDS - start ))s"
  echo "$cached"
}

temporal_healthy() {
  timeout 10 "$1" operator cluster health --address "$2" --client-connect-timeout 3s 2>/dev/null | grep -q SERVING
}

# The custom search attributes the run workflow sets, one NAME=TYPE a line, from the contracts library.
search_attributes() {
  node -e 'for (const [name, type] of Object.entries(require(process.argv[1]))) console.log(`${name}=${type}`)' \
    "$STEPWISE_ROOT/libs/contracts/src/search-attributes.json"
}

# Registers the search attributes the namespace lacks (`create` is idempotent, so a race is harmless).
ensure_search_attributes() {
  local cli="$1" address="$2" existing name type
  existing="$(timeout 20 "$cli" operator search-attribute list --address "$address" --namespace "$TEMPORAL_NAMESPACE" -o json)" \
    || die "could not list the search attributes of namespace $TEMPORAL_NAMESPACE at $address"
  while IFS='=' read -r name type; do
    say "registering search attribute $name ($type) in namespace $TEMPORAL_NAMESPACE"
    timeout 20 "$cli" operator search-attribute create --address "$address" --namespace "$TEMPORAL_NAMESPACE" \
      --name "$name" --type "$type" >/dev/null || die "could not register search attribute $name"
  done < <(search_attributes | node -e '
    const present = JSON.parse(process.argv[1]).customAttributes ?? {};
    const wanted = require("node:fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
    for (const line of wanted) if (!(line.split("=")[0] in present)) console.log(line);
  ' "$existing")
}

ensure_namespace() {
  local cli="$1" address="$2"
  timeout 20 "$cli" operator namespace describe --address "$address" --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 && return
  say "creating Temporal namespace $TEMPORAL_NAMESPACE"
  timeout 20 "$cli" operator namespace create --address "$address" --namespace "$TEMPORAL_NAMESPACE" >/dev/null \
    || die "could not create Temporal namespace $TEMPORAL_NAMESPACE at $address"
}

# start_temporal_dev_server CLI HOST PORT UI_PORT|headless: with UI_PORT, the dev server serves its own UI there.
start_temporal_dev_server() {
  local cli="$1" host="$2" port="$3" ui_port="$4"
  local db="$STEPWISE_DATA_DIR/temporal.db" log="$STEPWISE_DATA_DIR/temporal.log" pidfile="$STEPWISE_DATA_DIR/temporal.pid"
  local args=(server start-dev --ip "$host" --port "$port" --db-filename "$db"
    # Without these two the dev server adds ~100 ms to every activity: the transfer queue is polled at a
    # low rate by default, and SQLite syncs every commit.
    --dynamic-config-value history.transferProcessorMaxPollRPS=10000
    # Eager activities: a worker completing a workflow task gets the activities it schedules on its own
    # task queue in the answer, skipping one poll per step (the SDK asks for it by default).
    --dynamic-config-value system.enableActivityEagerExecution=true
    --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal
    --log-level warn)
  if [ "$ui_port" = headless ]; then args+=(--headless)
  # Payloads are encrypted: the Web UI asks the API to decrypt them (README, reading encrypted histories).
  else args+=(--ui-port "$ui_port" --ui-codec-endpoint "http://127.0.0.1:${API_PORT:-3000}/api/v1/temporal-codec")
  fi
  [ "$TEMPORAL_NAMESPACE" = default ] || args+=(--namespace "$TEMPORAL_NAMESPACE")
  local attribute
  while read -r attribute; do args+=(--search-attribute "$attribute"); done < <(search_attributes)

  say "starting temporal server start-dev on $host:$port (runs kept in $db, log $log)"
  detach "$cli" "${args[@]}" </dev/null >>"$log" 2>&1 &
  local pid=$!
  echo "$pid" >"$pidfile"
  local status=0
  wait_until "${TEMPORAL_START_TIMEOUT:-60}" "Temporal at $host:$port" "$pid" temporal_healthy "$cli" "$host:$port" || status=$?
  if (( status != 0 )); then
    tail -n 20 "$log" >&2
    (( status == 2 )) && die "temporal server start-dev exited (log above, from $log)"
    die "Temporal did not answer on $host:$port within ${TEMPORAL_START_TIMEOUT:-60}s (log above, from $log)"
  fi
  say "Temporal keeps running in the background (pid $pid; stop it with: kill \$(cat $pidfile))"
}

ensure_temporal() {
  export TEMPORAL_NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
  local cli
  if [ -n "${TEMPORAL_ADDRESS:-}" ]; then
    say "using Temporal at $TEMPORAL_ADDRESS (TEMPORAL_ADDRESS), namespace $TEMPORAL_NAMESPACE"
    cli="$(find_temporal_cli no-build)"
    if [ -n "$cli" ]; then
      export TEMPORAL_CLI_PATH="$cli"
      wait_until "${TEMPORAL_START_TIMEOUT:-60}" "Temporal at $TEMPORAL_ADDRESS" "" temporal_healthy "$cli" "$TEMPORAL_ADDRESS" \
        || die "Temporal at $TEMPORAL_ADDRESS (TEMPORAL_ADDRESS) is not healthy"
      ensure_search_attributes "$cli" "$TEMPORAL_ADDRESS"
    else
      say "no temporal CLI here to check it: the search attributes in libs/contracts/src/search-attributes.json must exist there"
    fi
    return
  fi

  local host=127.0.0.1 port="${TEMPORAL_PORT:-7233}" ui_port="${TEMPORAL_UI_PORT:-8233}"
  export TEMPORAL_ADDRESS="$host:$port"
  export TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://$host:$ui_port}"
  cli="$(find_temporal_cli build)"
  export TEMPORAL_CLI_PATH="$cli"
  local ui_server
  ui_server="$(find_temporal_ui_server)"
  if temporal_healthy "$cli" "$TEMPORAL_ADDRESS"; then
    say "reusing the Temporal server that answers at $TEMPORAL_ADDRESS"
  elif port_open "$host" "$port"; then
    # Something holds the port: a server still starting (give it time), or another program.
    wait_until 30 "Temporal at $TEMPORAL_ADDRESS" "" temporal_healthy "$cli" "$TEMPORAL_ADDRESS" \
      || die "port $port is taken by something that is not a healthy Temporal server: set TEMPORAL_PORT (and TEMPORAL_UI_PORT) to free ports, or TEMPORAL_ADDRESS"
  else
    start_temporal_dev_server "$cli" "$host" "$port" "$([ -n "$ui_server" ] && echo headless || echo "$ui_port")"
  fi
  if [ -n "$ui_server" ]; then
    export TEMPORAL_UI_SERVER_PATH="$ui_server"
    ensure_temporal_ui "$ui_server" "$host" "$ui_port"
  else
    say "no Go to build the Temporal Web UI server: the dev server's own UI shows payloads encrypted (README: reading encrypted histories)"
  fi
  [ "$TEMPORAL_NAMESPACE" = default ] || ensure_namespace "$cli" "$TEMPORAL_ADDRESS"
  ensure_search_attributes "$cli" "$TEMPORAL_ADDRESS"
}
