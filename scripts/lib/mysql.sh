# Brings up MySQL: DATABASE_URL if set, else mysql://root@127.0.0.1:$MYSQL_PORT/<db>, starting a private
# MariaDB in the data folder when nothing answers there. Sourced after common.sh; exports DATABASE_URL.

mysql_server_binary() {
  local b
  for b in mariadbd mysqld /usr/sbin/mariadbd /usr/sbin/mysqld; do
    command -v "$b" >/dev/null 2>&1 && { command -v "$b"; return; }
  done
}

install_mariadb_if_possible() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's mariadb-server: no MySQL server binary on this machine"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >&2 || die "apt-get install mariadb-server failed"
  else
    die "no MySQL answers on 127.0.0.1:$1 and no server binary is installed: install mariadb-server or set DATABASE_URL"
  fi
}

start_private_mysql() {
  local port="$1" dir="$STEPWISE_DATA_DIR/mysql" server
  server="$(mysql_server_binary)"
  [ -n "$server" ] || { install_mariadb_if_possible "$port"; server="$(mysql_server_binary)"; }
  mkdir -p "$dir"
  if [ ! -d "$dir/data/mysql" ]; then
    say "initialising a private MariaDB in $dir/data"
    if command -v mariadb-install-db >/dev/null 2>&1; then
      mariadb-install-db --user="$(id -un)" --datadir="$dir/data" --auth-root-authentication-method=normal >"$dir/install.log" 2>&1 \
        || die "mariadb-install-db failed (see $dir/install.log)"
    else
      "$server" --initialize-insecure --datadir="$dir/data" >"$dir/install.log" 2>&1 || die "mysqld --initialize failed (see $dir/install.log)"
    fi
  fi
  say "starting a private MySQL server on 127.0.0.1:$port (data: $dir/data, log: $dir/server.log)"
  nohup "$server" --no-defaults --user="$(id -un)" --datadir="$dir/data" --port="$port" --bind-address=127.0.0.1 \
    --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" >"$dir/server.log" 2>&1 &
  wait_for 60 "MySQL on port $port" port_open 127.0.0.1 "$port"
}

# $1: the database name used when DATABASE_URL is not set.
ensure_mysql() {
  if [ -n "${DATABASE_URL:-}" ]; then
    say "using MySQL at ${DATABASE_URL%%\?*} (DATABASE_URL)"
    return
  fi
  local port="${MYSQL_PORT:-3306}"
  if port_open 127.0.0.1 "$port"; then
    say "using the MySQL server on 127.0.0.1:$port"
  else
    start_private_mysql "$port"
  fi
  export DATABASE_URL="mysql://root@127.0.0.1:$port/$1"
}
