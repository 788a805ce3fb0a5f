#!/usr/bin/env bash
# Builds the benchmarks jar (tests skipped: CI runs them) and runs the short suite, about
# 6 minutes on 2 cores, writing the markdown report to benchmarks/target/bench-report.md.
#   benchmarks/run-report.sh                                  # report only
#   benchmarks/run-report.sh --docs docs/readme-bench.md      # also refresh the README section
#   benchmarks/run-report.sh --iterations 5 --threads 4       # longer measurement, 4 threads
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl benchmarks -am package -Dmaven.test.skip=true
exec java -cp benchmarks/target/benchmarks.jar io.ringtail.benchmarks.Report "$@"
