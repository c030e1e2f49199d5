# The Temporal Web UI beside the dev server: temporalio/ui-server (the version the CLI embeds) with the settings
# in scripts/temporal-ui/stepwise.yaml. The dev server's own UI cannot be told to send the browser's cookie with its
# codec calls (the CLI has no flag for it), so the payloads of runs would stay encrypted on its pages.
# Sourced by temporal.sh. Settings: TEMPORAL_UI_SERVER_PATH, TEMPORAL_UI_PORT (8233), API_PORT (3000, where
# the codec endpoint is).

TEMPORAL_UI_SERVER_VERSION=v2.42.1
TEMPORAL_UI_SERVER_MODULE=github.com/temporalio/ui-server/v2/cmd/server

# Prints the path of a UI server (TEMPORAL_UI_SERVER_PATH, else the cache folder), built there with Go the first
# time (about 20 s once the CLI is built: they share most packages); prints nothing when there is no Go.
find_temporal_ui_server() {
  local cached="$STEPWISE_CACHE_DIR/bin/temporal-ui-server-$TEMPORAL_UI_SERVER_VERSION" go build_dir
  if [ -n "${TEMPORAL_UI_SERVER_PATH:-}" ]; then
    [ -x "$TEMPORAL_UI_SERVER_PATH" ] || die "TEMPORAL_UI_SERVER_PATH=$TEMPORAL_UI_SERVER_PATH is not an executable file"
    echo "$TEMPORAL_UI_SERVER_PATH"; return
  fi
  if [ -x "$cached" ]; then echo "$cached"; return; fi
  go="$(go_binary)"
  [ -n "$go" ] || return 0
  say "building the Temporal Web UI server ($TEMPORAL_UI_SERVER_MODULE@$TEMPORAL_UI_SERVER_VERSION) into $STEPWISE_CACHE_DIR/bin"
  build_dir="$(mktemp -d)"
  local start=$SECONDS
  GOBIN="$build_dir" "$go" install "$TEMPORAL_UI_SERVER_MODULE@$TEMPORAL_UI_SERVER_VERSION" </dev/null >&2 \
    || { rm -rf "$build_dir"; die "go install $TEMPORAL_UI_SERVER_MODULE@$TEMPORAL_UI_SERVER_VERSION failed"; }
  mkdir -p "$STEPWISE_CACHE_DIR/bin"
  mv "$build_dir/server" "$cached" && rm -rf "$build_dir"
  say "built $cached in $(( SECONDS - start ))s"
  echo "$cached"
}

temporal_ui_healthy() { node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1/api/v1/settings"; }

# Whether the UI at $1 sends the browser's cookies to its codec endpoint (a dev server's own UI does not).
temporal_ui_sends_cookies() {
  node -e 'fetch(process.argv[1]).then((r) => r.json()).then((s) => process.exit(s.Codec?.IncludeCredentials ? 0 : 1), () => process.exit(1))' "$1/api/v1/settings"
}

# start_temporal_ui SERVER HOST UI_PORT: the UI server in the background on HOST:UI_PORT, reading Temporal at
# TEMPORAL_ADDRESS; its codec endpoint is the API's on API_PORT.
start_temporal_ui() {
  local server="$1" host="$2" ui_port="$3"
  local log="$STEPWISE_DATA_DIR/temporal-ui.log" pidfile="$STEPWISE_DATA_DIR/temporal-ui.pid"
  say "starting the Temporal Web UI on $host:$ui_port (log $log)"
  TEMPORAL_UI_HOST="$host" TEMPORAL_UI_PORT="$ui_port" \
    TEMPORAL_CODEC_ENDPOINT="${TEMPORAL_CODEC_ENDPOINT:-http://127.0.0.1:${API_PORT:-3000}/api/v1/temporal-codec}" \
    detach "$server" --root "$STEPWISE_ROOT/scripts" --config temporal-ui --env stepwise start </dev/null >>"$log" 2>&1 &
  local pid=$!
  echo "$pid" >"$pidfile"
  local status=0
  wait_until 30 "the Temporal Web UI at http://$host:$ui_port" "$pid" temporal_ui_healthy "http://$host:$ui_port" || status=$?
  if (( status != 0 )); then
    tail -n 20 "$log" >&2
    die "the Temporal Web UI did not start on $host:$ui_port (log above, from $log)"
  fi
  say "the Web UI keeps running in the background (pid $pid; stop it with: kill \$(cat $pidfile))"
}

# ensure_temporal_ui SERVER HOST UI_PORT: reuses whatever answers on the port (a UI started before), else starts one.
ensure_temporal_ui() {
  local server="$1" host="$2" ui_port="$3"
  if temporal_ui_healthy "http://$host:$ui_port"; then
    say "reusing the Temporal Web UI that answers at http://$host:$ui_port"
    temporal_ui_sends_cookies "http://$host:$ui_port" || say "  (it sends no cookie to the codec endpoint, so it shows payloads encrypted: an older dev server's own UI? stop it, kill \$(cat $STEPWISE_DATA_DIR/temporal.pid), and start again)"
  else
    start_temporal_ui "$server" "$host" "$ui_port"
  fi
}
