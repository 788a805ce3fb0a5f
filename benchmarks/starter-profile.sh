#!/usr/bin/env bash
# Where a service's request threads spend their CPU with the starter, within one run
# (io.ringtail.benchmarks.report.StarterProfileReport): the examples' load target under wrk's
# closed loop, pinned to CPU 0, profiled by the flight recorder's execution sampler after the
# warm-up; the share of the request threads' samples under the starter's observation handler, any
# Ringtail frame and Micrometer's timer handler. About 3 minutes. Needs wrk (apt-get install wrk).
# Writes benchmarks/target/starter-profile.md.
#   benchmarks/starter-profile.sh                                  # the starter's defaults
#   benchmarks/starter-profile.sh --configuration plain            # no Ringtail at all
#   benchmarks/starter-profile.sh --period-millis 10 --seconds 120
#   benchmarks/starter-profile.sh --keep-recording /tmp/starter.jfr  # for jfr print
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl benchmarks/reports -am package -DskipTests
mkdir -p benchmarks/target
mvn -B -q -ntp -pl examples/spring-boot -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$PWD/benchmarks/target/load-target.classpath"
classpath="$PWD/examples/spring-boot/target/classes:$(cat benchmarks/target/load-target.classpath)"
exec taskset -c "${LOAD_CPUS:-1}" java -cp benchmarks/reports/target/reports.jar \
  io.ringtail.benchmarks.report.StarterProfileReport --app-classpath "$classpath" "$@"
