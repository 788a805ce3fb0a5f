#!/usr/bin/env bash
# What the starter costs a service's requests (io.ringtail.benchmarks.report.ServiceLoadReport):
# the examples' load target under HTTP load, plain, with the starter, and with a Redis limit, 5
# interleaved rounds; the application pinned to CPU 0, the load on the others. About 13 minutes.
# Writes benchmarks/target/service-load.md.
#   benchmarks/service-load.sh                      # build, then measure
#   benchmarks/service-load.sh --rounds 3 --seconds 10
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl benchmarks/reports -am package -DskipTests
# the load target's classpath: each module of the reactor writes it, the application's last
mkdir -p benchmarks/target
mvn -B -q -ntp -pl examples/spring-boot -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$PWD/benchmarks/target/load-target.classpath"
classpath="$PWD/examples/spring-boot/target/classes:$(cat benchmarks/target/load-target.classpath)"
exec taskset -c "${LOAD_CPUS:-1}" java -cp benchmarks/reports/target/reports.jar \
  io.ringtail.benchmarks.report.ServiceLoadReport --app-classpath "$classpath" "$@"
