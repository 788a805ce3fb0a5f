#!/usr/bin/env bash
# What the starter costs a service's requests (io.ringtail.benchmarks.report.ServiceLoadReport):
# the examples' load target under HTTP load, plain (started twice: the second start is the run's
# floor), with the starter and with a Redis limit, 5 interleaved rounds; the application pinned to
# CPU 0, the load on the others. About 17 minutes.
# The closed loop's load is wrk where it is installed (a C process, far lighter on the load's CPUs
# than Java clients), else the report's Java clients. Writes benchmarks/target/service-load.md.
#   benchmarks/service-load.sh                      # build, then measure
#   benchmarks/service-load.sh --rounds 3 --seconds 10
#   benchmarks/service-load.sh --rounds 5 --warmup 120 --seconds 20   # docs/performance.md's run,
#                                     # about 55 minutes: a shorter warm-up leaves code uncompiled
#   benchmarks/service-load.sh --load java           # Java clients even where wrk is installed
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl benchmarks/reports -am package -DskipTests
# the load target's classpath: each module of the reactor writes it, the application's last
mkdir -p benchmarks/target
mvn -B -q -ntp -pl examples/spring-boot -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$PWD/benchmarks/target/load-target.classpath"
classpath="$PWD/examples/spring-boot/target/classes:$(cat benchmarks/target/load-target.classpath)"
# the closed loop's load generator, unless the arguments name one (--load wrk|java)
load=(--load wrk)
for a in "$@"; do
  [[ $a == --load || $a == --load=* ]] && load=()
done
if [[ ${#load[@]} -gt 0 ]] && ! command -v wrk >/dev/null; then
  load=(--load java)
  echo "wrk not found (apt-get install wrk): the closed loop runs on Java clients" >&2
fi
exec taskset -c "${LOAD_CPUS:-1}" java -cp benchmarks/reports/target/reports.jar \
  io.ringtail.benchmarks.report.ServiceLoadReport --app-classpath "$classpath" "${load[@]}" "$@"
