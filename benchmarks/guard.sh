#!/usr/bin/env bash
# The latency guard: a short JMH run (about 75 s on 2 cores) that fails when a hot path's cost
# relative to its floor in the same run exceeds its limit (see LatencyGuard and
# docs/performance-guards.md). Exit status 1 on a regression.
#   benchmarks/guard.sh                          # build the JMH jar, then guard
#   benchmarks/guard.sh --no-build               # guard the jar already built (CI, after mvn verify)
#   benchmarks/guard.sh --jar FILE               # guard another jar (implies --no-build)
#   benchmarks/guard.sh --slowdown lock          # inject a regression: twice|lock|atomic|allocate
# Measure on a quiet machine: two threads share the two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build=yes
jar=benchmarks/jmh/target/benchmarks.jar
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=no ;;
    --jar) jar="$2"; build=no; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [ "$build" = yes ]; then
  # -DskipTests, not -Dmaven.test.skip: the JMH module uses redis-backend's test-jar
  mvn -B -q -ntp -pl benchmarks/jmh -am package -DskipTests
fi
exec java -cp "$jar" io.ringtail.benchmarks.guard.LatencyGuard ${args[@]+"${args[@]}"}
