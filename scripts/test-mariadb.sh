#!/usr/bin/env bash
# A MariaDB server of the test suite's own: data in memory (a tmpfs), durability off, on a free loopback port.
#
#   scripts/test-mariadb.sh start DIR   starts it with its files under DIR (made on /dev/shm when DIR is empty) and
#                                       prints its URL (mysql://root@127.0.0.1:PORT) on the last line
#   scripts/test-mariadb.sh stop DIR    stops it by its PID and removes DIR
#
# Why (docs/testing.md, "The MariaDB pass"): the suite creates and drops a database for every service it starts and
# commits tens of thousands of small transactions. On the machine's server each commit waits for the redo log's fsync
# and every page is written twice (doublewrite). A server whose data dies with the run needs neither: the tests check
# what the database answers, never whether it survives a power cut (test/ha starts Galera nodes of its own for that).
# The schema's behaviour is the same: same server binary, character set and collation as the machine's server.
set -euo pipefail

command=${1:-}
dir=${2:-}

fail() {
  echo "test-mariadb: $*" >&2
  exit 1
}

start() {
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || fail "mariadbd not found (apt-get install mariadb-server)"
  local server=/usr/sbin/mariadbd
  command -v mariadbd >/dev/null 2>&1 && server=$(command -v mariadbd)
  if [ -z "$dir" ]; then
    local base=/dev/shm
    [ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
    dir=$(mktemp -d "$base/portcullis-test-mariadb.XXXXXX")
  fi
  mkdir -p "$dir/data"
  local port
  port=$(node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')
  mariadb-install-db --no-defaults --datadir="$dir/data" --user="$(id -un)" --auth-root-authentication-method=normal \
    --skip-test-db >"$dir/install.log" 2>&1 || {
    cat "$dir/install.log" >&2
    fail "mariadb-install-db failed"
  }
  # --no-defaults: nothing of the machine's server configuration (its datadir, socket, port) is read; what the
  # machine's server sets that the schema notices (character set, collation, name resolution) is set again here.
  "$server" --no-defaults --user="$(id -un)" --datadir="$dir/data" --socket="$dir/mysqld.sock" \
    --pid-file="$dir/mysqld.pid" --log-error="$dir/error.log" --bind-address=127.0.0.1 --port="$port" \
    --skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-flush-method=nosync --skip-log-bin \
    --sync-frm=0 --innodb-buffer-pool-size=512M --innodb-log-file-size=256M \
    >/dev/null 2>&1 &
  echo $! >"$dir/server.pid"
  for _ in $(seq 1 120); do
    if mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot ping >/dev/null 2>&1; then
      # install-db grants root on the socket (localhost); the suites connect over TCP to 127.0.0.1.
      mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot -e \
        "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;"
      echo "mysql://root@127.0.0.1:$port"
      return 0
    fi
    kill -0 "$(cat "$dir/server.pid")" 2>/dev/null || break
    sleep 0.5
  done
  cat "$dir/error.log" >&2 || true
  fail "the server in $dir did not start"
}

stop() {
  [ -n "$dir" ] || fail "usage: $0 stop DIR"
  if [ -f "$dir/server.pid" ]; then
    local pid
    pid=$(cat "$dir/server.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

case "$command" in
start) start ;;
stop) stop ;;
*) fail "usage: $0 start|stop [DIR]" ;;
esac
