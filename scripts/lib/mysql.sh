# Brings up MySQL: DATABASE_URL when set, else mysql://root@127.0.0.1:$MYSQL_PORT/<db>, starting a private
# MariaDB (or MySQL) server on the data folder when nothing answers there. Creates the database when it is
# missing. Sourced after common.sh, with node_modules installed (it talks to MySQL through mysql2);
# exports DATABASE_URL.
#
# Settings: DATABASE_URL, MYSQL_PORT (3306; the private server falls back to 3307 when 3306 is taken by
# something else), MYSQL_START_TIMEOUT (seconds, 60), STEPWISE_DATA_DIR.

STEPWISE_MYSQL_DIR="$STEPWISE_DATA_DIR/mysql"          # the private server's data directory
STEPWISE_MYSQL_PIDFILE="$STEPWISE_MYSQL_DIR/mysqld.pid"
STEPWISE_MYSQL_LOG="$STEPWISE_DATA_DIR/mysql.log"

# Prints "mysql" when a MySQL or MariaDB server greets on host:port, "none" when nothing listens there,
# and "other" for any other program (it stays silent or says something else).
mysql_probe() {
  node -e '
    const socket = require("node:net").connect({ host: process.argv[1], port: Number(process.argv[2]) });
    const answer = (what) => { console.log(what); socket.destroy(); process.exit(0); };
    socket.setTimeout(3000, () => answer("other"));
    // The server speaks first: a handshake (protocol 10) or an error packet (0xff), after a 4-byte header.
    socket.once("data", (b) => answer(b.length > 4 && (b[4] === 10 || b[4] === 0xff) ? "mysql" : "other"));
    socket.once("error", (e) => answer(e.code === "ECONNREFUSED" ? "none" : "other"));
    socket.once("end", () => answer("other"));
  ' "$1" "$2"
}

mysql_answers() { [ "$(mysql_probe "$1" "$2")" = mysql ]; }

# Creates the database of the URL $1 unless it exists, retrying while the server is still starting; with
# $2 = fresh, drops it first (the tests' own, so each `npm test` starts from an empty one).
ensure_database() {
  node -e '
    const mysql = require(require.resolve("mysql2/promise", { paths: [process.argv[1]] }));
    const target = new URL(process.argv[2]);
    const name = decodeURIComponent(target.pathname.slice(1));
    const server = new URL(target.href);
    server.pathname = "/";
    const deadline = Date.now() + Number(process.argv[3]) * 1000;
    const transient = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "PROTOCOL_CONNECTION_LOST", "ER_SERVER_SHUTDOWN", "ER_CON_COUNT_ERROR"]);
    (async () => {
      if (!name) throw new Error(`the URL names no database: ${target.pathname}`);
      for (;;) {
        let connection;
        try {
          connection = await mysql.createConnection({ uri: server.href, connectTimeout: 5000 });
          if (process.argv[4] === "fresh") await connection.query("DROP DATABASE IF EXISTS ??", [name]);
          const [rows] = await connection.query("SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", [name]);
          if (rows.length === 0) {
            await connection.query("CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4", [name]);
            console.error(`[stepwise] created database ${name}`);
          }
          return;
        } catch (error) {
          if (!transient.has(error.code) || Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        } finally {
          await connection?.end().catch(() => {});
        }
      }
    })().catch((error) => {
      console.error(`[stepwise] error: MySQL at ${server.host}: ${error.code ?? ""} ${error.message}`);
      process.exit(1);
    });
  ' "$STEPWISE_ROOT" "$1" "${MYSQL_START_TIMEOUT:-60}" "${2:-}"
}

mysql_server_binary() {
  local b
  for b in mariadbd mysqld /usr/sbin/mariadbd /usr/sbin/mysqld /usr/libexec/mysqld; do
    if command -v "$b" >/dev/null 2>&1; then command -v "$b"; return; fi
  done
}

install_mariadb_server() {
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
    say "no MySQL server binary on this machine: installing Debian's mariadb-server with apt-get"
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server; } </dev/null >&2 \
      || die "apt-get install mariadb-server failed"
  else
    die "nothing answers on 127.0.0.1:$1 and no MySQL server is installed. Install MariaDB or MySQL (Debian: apt-get install mariadb-server; macOS: brew install mariadb), or set DATABASE_URL / MYSQL_PORT to a running server"
  fi
}

private_mysql_pid() {
  local pid
  pid="$(cat "$STEPWISE_MYSQL_PIDFILE" 2>/dev/null)" || return 1
  pid_alive "$pid" && echo "$pid"
}

# Starts a private server on 127.0.0.1:$1 over $STEPWISE_MYSQL_DIR, initialising it the first time.
start_private_mysql() {
  local port="$1" server socket pid
  if pid="$(private_mysql_pid)"; then
    die "the private MySQL server of $STEPWISE_MYSQL_DIR (pid $pid) runs, but not on port $port: stop it (kill $pid) or set MYSQL_PORT to its port"
  fi
  server="$(mysql_server_binary)"
  if [ -z "$server" ]; then
    install_mariadb_server "$port"
    server="$(mysql_server_binary)"
    [ -n "$server" ] || die "mariadb-server is installed but no mariadbd/mysqld binary was found"
    # Debian's package may have started its own service on the port we were about to use.
    if mysql_answers 127.0.0.1 "$port"; then say "the newly installed server answers on 127.0.0.1:$port"; return; fi
  fi

  if [ ! -d "$STEPWISE_MYSQL_DIR/mysql" ]; then
    say "initialising a private database server in $STEPWISE_MYSQL_DIR ($("$server" --version | head -n1))"
    mkdir -p "$STEPWISE_MYSQL_DIR"
    local installer
    installer="$(command -v mariadb-install-db || command -v mysql_install_db || true)"
    if [ -n "$installer" ] && "$server" --version | grep -qi mariadb; then
      # root@localhost and root@127.0.0.1 without a password, like the server the scripts default to.
      "$installer" --no-defaults --user="$(id -un)" --datadir="$STEPWISE_MYSQL_DIR" --auth-root-authentication-method=normal \
        --skip-test-db >"$STEPWISE_DATA_DIR/mysql-install.log" 2>&1 \
        || { tail -n 20 "$STEPWISE_DATA_DIR/mysql-install.log" >&2; die "$installer failed (log above, from $STEPWISE_DATA_DIR/mysql-install.log)"; }
    else
      "$server" --no-defaults --initialize-insecure --user="$(id -un)" --datadir="$STEPWISE_MYSQL_DIR" >"$STEPWISE_DATA_DIR/mysql-install.log" 2>&1 \
        || { tail -n 20 "$STEPWISE_DATA_DIR/mysql-install.log" >&2; die "mysqld --initialize-insecure failed (log above, from $STEPWISE_DATA_DIR/mysql-install.log)"; }
    fi
  fi

  socket="$STEPWISE_MYSQL_DIR/mysqld.sock"
  (( ${#socket} < 100 )) || socket="${TMPDIR:-/tmp}/stepwise-mysqld-$port.sock"  # unix socket paths are short
  say "starting a private database server on 127.0.0.1:$port (data $STEPWISE_MYSQL_DIR, log $STEPWISE_MYSQL_LOG)"
  detach "$server" --no-defaults --user="$(id -un)" --datadir="$STEPWISE_MYSQL_DIR" \
    --port="$port" --bind-address=127.0.0.1 --socket="$socket" --pid-file="$STEPWISE_MYSQL_PIDFILE" \
    --log-error="$STEPWISE_MYSQL_LOG" --character-set-server=utf8mb4 --max-connections=500 \
    --innodb-flush-log-at-trx-commit=2 </dev/null >>"$STEPWISE_MYSQL_LOG" 2>&1 &
  pid=$!
  local status=0
  wait_until "${MYSQL_START_TIMEOUT:-60}" "MySQL on 127.0.0.1:$port" "$pid" mysql_answers 127.0.0.1 "$port" || status=$?
  if (( status != 0 )); then
    tail -n 20 "$STEPWISE_MYSQL_LOG" >&2
    (( status == 2 )) && die "the private database server exited (log above, from $STEPWISE_MYSQL_LOG)"
    die "the private database server did not answer on 127.0.0.1:$port within ${MYSQL_START_TIMEOUT:-60}s (log above)"
  fi
  say "it keeps running in the background (pid $pid; stop it with: kill \$(cat $STEPWISE_MYSQL_PIDFILE))"
}

# $1: the database name used when DATABASE_URL is not set (stepwise, or stepwise_test for the tests);
# $2 = fresh: start that database empty (never done to a DATABASE_URL given by the caller).
ensure_mysql() {
  if [ -n "${DATABASE_URL:-}" ]; then
    say "using MySQL at $(sed -E 's#//([^:@/]*):[^@/]*@#//\1:***@#; s#\?.*##' <<<"$DATABASE_URL") (DATABASE_URL)"
    ensure_database "$DATABASE_URL" || exit 1
    return
  fi

  local port="${MYSQL_PORT:-3306}" found
  found="$(mysql_probe 127.0.0.1 "$port")"
  if [ "$found" = other ] && [ -z "${MYSQL_PORT:-}" ]; then
    port=3307
    say "127.0.0.1:3306 is taken by something that is not MySQL: using port $port for the private server (set MYSQL_PORT to choose)"
    found="$(mysql_probe 127.0.0.1 "$port")"
  fi
  case "$found" in
    mysql) say "using the MySQL server on 127.0.0.1:$port" ;;
    none) start_private_mysql "$port" ;;
    *) die "127.0.0.1:$port is taken by something that is not MySQL: set MYSQL_PORT to a free port or DATABASE_URL" ;;
  esac
  export DATABASE_URL="mysql://root@127.0.0.1:$port/$1"
  # The specs share it: rows an earlier run left (runs the reconciler would pick up) must not reach them.
  [ "${2:-}" = fresh ] && say "emptying database $1"
  ensure_database "$DATABASE_URL" "${2:-}" || exit 1
  say "database: $DATABASE_URL"
}
