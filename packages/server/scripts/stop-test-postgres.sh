#!/usr/bin/env bash
# Stops the PostgreSQL server of start-test-postgres.sh, by its pid, and waits until it is gone.
#
#   stop-test-postgres.sh          stops the server running in the test directory, if any
#   stop-test-postgres.sh PID      stops it only if PID is its pid (what start exported as
#                                  FOLLOWUP_TEST_PG_STARTED_PID); an empty PID means "this shell
#                                  did not start it": nothing is stopped. The server is found
#                                  from the pid even without the FOLLOWUP_TEST_PG_DIR start used
set -euo pipefail

followup_pg_dir="${FOLLOWUP_TEST_PG_DIR:-/tmp/followup-pg}"
pid_file="$followup_pg_dir/data/postmaster.pid"
# Given a pid, find its data directory from its command line (`postgres -D <dir> …`), so that a
# server started with another FOLLOWUP_TEST_PG_DIR is still found.
if [ "$#" -ge 1 ] && [ -n "$1" ] && [ -r "/proc/$1/cmdline" ]; then
  data_dir=$(tr '\0' '\n' <"/proc/$1/cmdline" | awk 'previous == "-D" { print; exit } { previous = $0 }')
  if [ -n "$data_dir" ] && [ -f "$data_dir/postmaster.pid" ]; then
    pid_file="$data_dir/postmaster.pid"
  fi
fi

if [ "$#" -ge 1 ] && [ -z "$1" ]; then
  echo "stop-test-postgres: this shell did not start PostgreSQL; leaving it running" >&2
  exit 0
fi
if [ ! -f "$pid_file" ]; then
  exit 0
fi
pid=$(head -n 1 "$pid_file")
if [ "$#" -ge 1 ] && [ "$1" != "$pid" ]; then
  echo "stop-test-postgres: PostgreSQL now runs as pid $pid, not $1; leaving it running" >&2
  exit 0
fi
if ! kill -0 "$pid" 2>/dev/null; then
  exit 0
fi
# Waits up to $1 seconds for the server to be gone; fails if it is still there.
followup_pg_gone_within() {
  for _ in $(seq 1 $(($1 * 10))); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}
# SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, write a last checkpoint,
# exit cleanly.
kill -INT "$pid"
followup_pg_gone_within 30 && exit 0
# That checkpoint syncs every file the tests' schemas made (45,000 and more after a whole run),
# which can take minutes on a busy machine. This cluster holds nothing worth keeping: SIGQUIT,
# the "immediate" shutdown, ends it without the checkpoint (the next start recovers from the WAL).
echo "stop-test-postgres: PostgreSQL (pid $pid) still stopping after 30 s; stopping it at once" >&2
kill -QUIT "$pid" 2>/dev/null || exit 0
followup_pg_gone_within 30 && exit 0
echo "stop-test-postgres: PostgreSQL (pid $pid) did not stop" >&2
exit 1
