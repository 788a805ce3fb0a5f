#!/usr/bin/env bash
# Ringtail's Redis rate limiters beside Bucket4j (Lettuce) and Redisson on one redis-server that
# the report starts itself (about 4 minutes on 2 cores); see RedisLimiterReport. Writes
# benchmarks/target/redis-limiters.md.
#   benchmarks/redis-limiters.sh                                   # report only
#   benchmarks/redis-limiters.sh --docs docs/performance.md        # also refresh that file's table
#   benchmarks/redis-limiters.sh --seconds 5                       # longer throughput phases
#   benchmarks/redis-limiters.sh --server-cpus 1                   # the server on CPU 1 only, the
#                                                                  # report on CLIENT_CPUS (default 0)
set -euo pipefail
cd "$(dirname "$0")/.."
# -DskipTests, not -Dmaven.test.skip: the report starts redis-server with redis-backend's test-jar
mvn -B -q -ntp -pl benchmarks/reports -am package -DskipTests
launcher=()
for arg in "$@"; do
  if [ "$arg" = "--server-cpus" ]; then
    launcher=(taskset -c "${CLIENT_CPUS:-0}")
  fi
done
exec "${launcher[@]}" java -cp benchmarks/reports/target/reports.jar io.ringtail.benchmarks.report.RedisLimiterReport "$@"
