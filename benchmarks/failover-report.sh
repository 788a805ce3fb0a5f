#!/usr/bin/env bash
# What a Sentinel failover costs under load when the promoted replica misses writes on purpose, in
# the default and the strict mode (about 15 s per failover and mode, plus a minute for strict
# mode's cost per decision); see FailoverReport. Writes benchmarks/target/failover.md.
#   benchmarks/failover-report.sh                                  # 20 failovers per mode
#   benchmarks/failover-report.sh --docs docs/failover.md          # also refresh that file's table
#   benchmarks/failover-report.sh --failovers 5                    # a quicker look
set -euo pipefail
cd "$(dirname "$0")/.."
# -DskipTests, not -Dmaven.test.skip: the report starts its servers with redis-backend's test-jar
mvn -B -q -ntp -pl benchmarks/reports -am package -DskipTests
exec java -cp benchmarks/reports/target/reports.jar io.ringtail.benchmarks.report.FailoverReport "$@"
