#!/usr/bin/env bash
# Held-out NAB scores: the ENSEMBLE's constants and thresholds tuned on part of the corpus, scored
# on the rest, 5-fold by file (stratified by category) and leave-one-category-out
# (io.ringtail.benchmarks.nab.NabCrossValidation). A few minutes on 2 cores, after the build.
#   benchmarks/nab-cv.sh              # build, then cross-validate
#   benchmarks/nab-cv.sh --no-build   # the jar already built
#   benchmarks/nab-cv.sh --rule=consistent  # keep a change only if it raises both halves of the
#                                           # training files' score
# The corpus is read from ../shared/nab beside the project root; NAB_DIR=/path/to/nab overrides.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --no-build ]; then
  shift
else
  # tests compiled, not run
  mvn -B -q -ntp -pl benchmarks/nab -am package -DskipTests
fi
exec java ${NAB_DIR:+-Dringtail.nab.dir="$NAB_DIR"} -cp benchmarks/nab/target/nab.jar \
  io.ringtail.benchmarks.nab.NabCrossValidation "$@"
