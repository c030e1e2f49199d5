# npm start's supervision of the API and the worker. Sourced after common.sh, never run on its own.
#
# The script that sources it defines `launch_<name>` for each process (it starts it in the background with
# `&`), then calls `supervise NAME...`, waits for the processes to be ready, and `keep_running`, then
# `end_supervision`. A process that exits on its own once start-up is over is started again after a wait,
# as compose's `restart: unless-stopped` does: a worker killed by what a run made it do (a heap exhausted,
# exit 134) must not take the API down with it, and the worker quarantines a run whose call killed
# POISON_ATTEMPTS_LIMIT workers, so the restarts end. The wait doubles while a process keeps dying within a
# minute of its start, up to RESTART_BACKOFF_MAX_SECONDS (30), and is 1 s again once it stayed up a minute.
# Ctrl-C (or SIGTERM, or the parent going away) stops them all, gently then firmly.

declare -A child_pid=() child_since=() child_wait=() restart_at=()
supervised=()
stopping=""

# launch NAME: starts it (launch_NAME) and notes its pid and when it started.
launch() {
  "launch_$1"
  child_pid[$1]=$!
  child_since[$1]=$SECONDS
}

# The pids of the supervised processes running now.
supervised_pids() {
  local name
  for name in "${supervised[@]}"; do pid_alive "${child_pid[$name]:-}" && printf '%s ' "${child_pid[$name]}"; done
  return 0
}

# stop_children SIGNAL: what Ctrl-C and SIGTERM do; the loop then ends and end_supervision waits for them.
stop_children() {
  stopping="$1"
  local pids
  pids="$(supervised_pids)"
  # shellcheck disable=SC2086 # one word per pid
  [ -n "$pids" ] && kill -s "$1" $pids 2>/dev/null
  return 0
}

# supervise NAME...: launches each process and takes over Ctrl-C and SIGTERM.
supervise() {
  trap 'stop_children INT' INT
  trap 'stop_children TERM' TERM
  local name
  for name in "$@"; do
    supervised+=("$name")
    launch "$name"
  done
}

# reap NAME: the exit status of a process that has ended, in $reaped (128 + the signal when a signal ended
# it). Not a command substitution: only this shell can wait for its children.
reaped=0
reap() {
  reaped=0
  wait "${child_pid[$1]}" 2>/dev/null || reaped=$?
}

# restart_exited: notes each process that exited (the status, how long it ran, when it comes back) and
# starts again those whose wait is over.
restart_exited() {
  local name ran wait_s max="${RESTART_BACKOFF_MAX_SECONDS:-30}"
  for name in "${supervised[@]}"; do
    [ -n "$stopping" ] && return 0
    if [ -n "${restart_at[$name]:-}" ]; then
      (( SECONDS >= restart_at[$name] )) || continue
      unset "restart_at[$name]"
      # Ctrl-C reaches every process of the terminal's group at once: one that died of it is not restarted.
      [ -n "$stopping" ] && return 0
      launch "$name"
      say "started the $name again (pid ${child_pid[$name]})"
      continue
    fi
    pid_alive "${child_pid[$name]}" && continue
    reap "$name"
    ran=$(( SECONDS - child_since[$name] ))
    wait_s="${child_wait[$name]:-1}"
    (( ran >= 60 )) && wait_s=1
    child_wait[$name]=$(( wait_s * 2 > max ? max : wait_s * 2 ))
    restart_at[$name]=$(( SECONDS + wait_s ))
    say "the $name exited (status $reaped) after ${ran}s: starting it again in ${wait_s}s"
  done
}

# keep_running: restarts what exits until a signal arrives or the parent goes away. (`npm start` runs the
# script under `sh -c`, which dies on SIGTERM without passing it on: hence the parent check.)
keep_running() {
  local parent=$PPID
  while [ -z "$stopping" ]; do
    if ! pid_alive "$parent"; then
      say "the parent process went away: stopping the ${supervised[*]}"
      stop_children TERM
      break
    fi
    restart_exited
    sleep 1 & wait $! 2>/dev/null || true
  done
}

# start_failed: a process exited while the others were starting: a start that failed, not a crash to
# restart (a port taken, a bad setting). Stops the others; the exit status is the process's own.
start_failed() {
  local name status=1
  for name in "${supervised[@]}"; do
    pid_alive "${child_pid[$name]}" && continue
    reap "$name"
    status=$reaped
    say "the $name exited (status $status) during start-up: stopping the others"
    break
  done
  stop_children TERM
  stopping="start-up"
  return $(( status == 0 ? 1 : status ))
}

# end_supervision [STATUS]: waits up to 30 s for the processes to stop, kills what is left, and exits: 130
# after Ctrl-C, 143 after SIGTERM, else STATUS (1 when it is 0: stopping on its own is a failure of the run).
end_supervision() {
  local status="${1:-0}" deadline=$(( SECONDS + 30 ))
  while [ -n "$(supervised_pids)" ] && (( SECONDS < deadline )); do sleep 0.2; done
  local left name
  left="$(supervised_pids)"
  # shellcheck disable=SC2086 # one word per pid
  [ -n "$left" ] && kill -s KILL $left 2>/dev/null
  # Only these: a Temporal dev server this script started runs on in the background.
  for name in "${supervised[@]}"; do wait "${child_pid[$name]}" 2>/dev/null || true; done
  case "$stopping" in
    INT) exit 130 ;;
    TERM) exit 143 ;;
    *) exit $(( status == 0 ? 1 : status )) ;;
  esac
}
