#!/usr/bin/env bash
# Start, stop or check both local services hallmon needs: Redis and Kafka.
#
#   deploy/local/services.sh start|stop|status
#
# start is idempotent and returns once both answer; status exits 0 only when both answer.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

case "${1:-}" in
  start)
    "$HERE/redis.sh" start
    "$HERE/kafka.sh" start
    ;;
  stop)
    "$HERE/kafka.sh" stop
    "$HERE/redis.sh" stop
    ;;
  status)
    rc=0
    "$HERE/redis.sh" status || rc=$?
    "$HERE/kafka.sh" status || rc=$?
    exit "$rc"
    ;;
  *) echo "usage: $0 {start|stop|status}" >&2; exit 2 ;;
esac
