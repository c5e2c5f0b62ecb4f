#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests, on a free loopback port, in a temp dir, with
# trust authentication for the user `postgres`. Fails loudly when it cannot start one.
#
#   test-postgres.sh start DIR       initialise and start a server in DIR (created, must not
#                                    exist); print its URI, postgresql://postgres@127.0.0.1:PORT/postgres
#   test-postgres.sh stop DIR        stop it and delete DIR
#   test-postgres.sh run -- CMD...   start one, run CMD with FLOE_TEST_POSTGRES_URI set, stop it;
#                                    exits with CMD's status
#
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` user.
set -euo pipefail

die() { echo "test-postgres.sh: $*" >&2; exit 1; }

pg_bin() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$dir" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
  command -v pg_ctl >/dev/null 2>&1 || die "PostgreSQL server binaries not found (Debian package postgresql; scripts/install-deps.sh installs it)"
  dirname "$(command -v pg_ctl)"
}

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local dir="$1" bin port
  bin="$(pg_bin)"
  [ ! -e "$dir" ] || die "$dir exists"
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
  as_server_user "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  # Another process may take the port between our probe and the server's bind: try again.
  for _ in 1 2 3 4 5; do
    port="$(free_port)"
    if as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null 2>&1; then
      echo "$port" >"$dir/port"
      echo "postgresql://postgres@127.0.0.1:$port/postgres"
      return 0
    fi
  done
  cat "$dir/server.log" >&2 || true
  die "could not start PostgreSQL in $dir"
}

stop() {
  local dir="$1" bin
  bin="$(pg_bin)"
  if [ -d "$dir/data" ]; then
    as_server_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || die "usage: start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: stop DIR"; stop "$2" ;;
  run)
    shift
    [ "${1:-}" = "--" ] && shift
    [ $# -ge 1 ] || die "usage: run -- CMD..."
    tmp="$(mktemp -d /tmp/floe-pg.XXXXXX)"
    rmdir "$tmp"
    trap 'stop "$tmp"' EXIT
    FLOE_TEST_POSTGRES_URI="$(start "$tmp")"
    export FLOE_TEST_POSTGRES_URI
    set +e
    "$@"
    rc=$?
    set -e
    exit "$rc"
    ;;
  *) die "usage: test-postgres.sh start DIR | stop DIR | run -- CMD..." ;;
esac
