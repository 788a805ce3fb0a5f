#!/usr/bin/env bash
# Builds the reports jar (tests compiled, not run: CI runs them) and runs the short suite, about
# 6 minutes on 2 cores, writing the markdown report to benchmarks/target/bench-report.md.
#   benchmarks/run-report.sh                                  # report only
#   benchmarks/run-report.sh --docs docs/performance.md       # also refresh the performance tables
#   benchmarks/run-report.sh --iterations 5 --threads 4       # longer measurement, 4 threads
#   benchmarks/run-report.sh --redis [...]                    # then the Redis report (about 90 s)
#   benchmarks/run-report.sh --redis-only [--docs FILE]       # only the Redis report
# The Redis report (RedisReport) needs redis-benchmark on the PATH (Debian: redis-tools) and writes
# benchmarks/target/redis-report.md; with --docs it refreshes that file's redis-report block too.
set -euo pipefail
cd "$(dirname "$0")/.."
redis=no
args=()
redis_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --redis) redis=also ;;
    --redis-only) redis=only ;;
    --docs) args+=("$1" "$2"); redis_args+=("$1" "$2"); shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
# -DskipTests, not -Dmaven.test.skip: the Redis report uses redis-backend's test-jar
mvn -B -q -ntp -pl benchmarks/reports -am package -DskipTests
if [ "$redis" != only ]; then
  java -cp benchmarks/reports/target/reports.jar io.ringtail.benchmarks.report.Report ${args[@]+"${args[@]}"}
fi
if [ "$redis" != no ]; then
  java -cp benchmarks/reports/target/reports.jar io.ringtail.benchmarks.report.RedisReport ${redis_args[@]+"${redis_args[@]}"}
fi
