#!/usr/bin/env bash
# Stops the PostgreSQL server that start-test-postgres.sh started: by the pid in its
# postmaster.pid, and waits until it is gone. Does nothing when it is not running.
set -euo pipefail

followup_pg_dir="${FOLLOWUP_TEST_PG_DIR:-/tmp/followup-pg}"
pid_file="$followup_pg_dir/data/postmaster.pid"

if [ ! -f "$pid_file" ]; then
  exit 0
fi
pid=$(head -n 1 "$pid_file")
if ! kill -0 "$pid" 2>/dev/null; then
  exit 0
fi
# SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, then exit cleanly.
kill -INT "$pid"
for _ in $(seq 1 300); do
  kill -0 "$pid" 2>/dev/null || exit 0
  sleep 0.1
done
echo "stop-test-postgres: PostgreSQL (pid $pid) did not stop within 30 s" >&2
exit 1
