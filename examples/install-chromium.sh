#!/usr/bin/env bash
# Installs Debian's chromium package for DashboardBrowserTest, which renders the dashboard page
# in a real headless browser. `mvn verify` runs this before the examples' tests when
# /usr/bin/chromium is missing (profile install-chromium in examples/plain-java/pom.xml); it does
# nothing when a browser is already there. Argument: the -Dringtail.chromium path, if any.
set -euo pipefail
exec bash "$(dirname "$0")/../test-support/install-debian-package.sh" chromium /usr/bin/chromium \
  "the dashboard's browser test" ringtail.chromium \
  "${1:-}" "${CHROMIUM:-}" /usr/bin/chromium-browser /usr/bin/google-chrome
