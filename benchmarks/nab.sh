#!/usr/bin/env bash
# The Numenta Anomaly Benchmark, one command: builds the NAB jar, runs every detector of
# io.ringtail.anomaly over the NAB corpus, writes NAB's result layout under
# benchmarks/target/nab-results/<detector>/<category>/<detector>_<file>.csv, scores the files
# (threshold tuned per profile over the corpus) and prints the table beside the published
# scoreboard. About 30 s after the build on 2 cores.
#   benchmarks/nab.sh                            # build, then every detector
#   benchmarks/nab.sh --no-build ringtail_range  # the jar already built, one detector
# The corpus is read from ../shared/nab beside the project root; NAB_DIR=/path/to/nab overrides.
set -euo pipefail
cd "$(dirname "$0")/.."
build=yes
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=no ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [ "$build" = yes ]; then
  # tests compiled, not run
  mvn -B -q -ntp -pl benchmarks/nab -am package -DskipTests
fi
exec java ${NAB_DIR:+-Dringtail.nab.dir="$NAB_DIR"} -cp benchmarks/nab/target/nab.jar \
  io.ringtail.benchmarks.nab.NabRunner ${args[@]+"${args[@]}"}
