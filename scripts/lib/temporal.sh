# Brings up Temporal: TEMPORAL_ADDRESS if set, else a reused or new `temporal server start-dev`.
# Sourced after common.sh; exports TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_UI_URL.
TEMPORAL_CLI_VERSION=v1.5.1  # the newest tag `go install` accepts; Server 1.29.1, UI 2.42.1

find_temporal_cli() {
  if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
    [ -x "$TEMPORAL_CLI_PATH" ] || die "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable"
    echo "$TEMPORAL_CLI_PATH"; return
  fi
  if command -v temporal >/dev/null 2>&1; then command -v temporal; return; fi
  local cached="$STEPWISE_CACHE_DIR/bin/temporal"
  if [ -x "$cached" ]; then echo "$cached"; return; fi
  command -v go >/dev/null 2>&1 || die "no temporal CLI found. Install it (https://docs.temporal.io/cli), set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to a running server"
  say "building the temporal CLI $TEMPORAL_CLI_VERSION into $STEPWISE_CACHE_DIR/bin: no binary on this machine"
  say "(first time only: about 5 minutes and 1.8 GB of Go module cache; later clones reuse it)"
  mkdir -p "$STEPWISE_CACHE_DIR/bin"
  GOBIN="$STEPWISE_CACHE_DIR/bin" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION" >&2 \
    || die "go install of the temporal CLI failed"
  echo "$cached"
}

# The custom search attributes the run workflow sets, from the contracts library.
search_attribute_args() {
  node -e 'const a=require(process.argv[1]);for(const [k,v] of Object.entries(a))console.log(k+"="+v)' \
    "$STEPWISE_ROOT/libs/contracts/src/search-attributes.json"
}

ensure_search_attributes() {
  local cli="$1" address="$2" existing
  existing="$("$cli" operator search-attribute list --address "$address" --namespace "$TEMPORAL_NAMESPACE" 2>/dev/null)"
  while IFS='=' read -r name type; do
    if ! grep -qw "$name" <<<"$existing"; then
      say "registering search attribute $name ($type)"
      "$cli" operator search-attribute create --address "$address" --namespace "$TEMPORAL_NAMESPACE" --name "$name" --type "$type" >/dev/null
    fi
  done < <(search_attribute_args)
}

ensure_temporal() {
  export TEMPORAL_NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
  if [ -n "${TEMPORAL_ADDRESS:-}" ]; then
    say "using Temporal at $TEMPORAL_ADDRESS (TEMPORAL_ADDRESS)"
    return
  fi
  local host=127.0.0.1 port="${TEMPORAL_PORT:-7233}" ui_port="${TEMPORAL_UI_PORT:-8233}" cli
  export TEMPORAL_ADDRESS="$host:$port"
  export TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://$host:$ui_port}"
  cli="$(find_temporal_cli)"
  if "$cli" operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; then
    say "reusing the Temporal server already up at $TEMPORAL_ADDRESS"
  else
    local dir="$STEPWISE_DATA_DIR/temporal"
    mkdir -p "$dir"
    say "starting temporal server start-dev at $TEMPORAL_ADDRESS (data: $dir/temporal.db, log: $dir/server.log)"
    local attrs=() a
    while read -r a; do attrs+=(--search-attribute "$a"); done < <(search_attribute_args)
    # The poll limit and the SQLite pragmas each save ~100 ms per activity on the dev server.
    (cd "$dir" && nohup "$cli" server start-dev \
      --ip "$host" --port "$port" --ui-port "$ui_port" \
      --db-filename "$dir/temporal.db" \
      --dynamic-config-value history.transferProcessorMaxPollRPS=10000 \
      --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
      --log-level warn "${attrs[@]}" >"$dir/server.log" 2>&1 &)
    wait_for 60 "Temporal" "$cli" operator cluster health --address "$TEMPORAL_ADDRESS"
  fi
  ensure_search_attributes "$cli" "$TEMPORAL_ADDRESS"
}
