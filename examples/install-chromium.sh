#!/usr/bin/env bash
# Installs Debian's chromium package for DashboardBrowserTest, which renders the dashboard page
# in a real headless browser. `mvn verify` runs this before the examples' tests when
# /usr/bin/chromium is missing (profile install-chromium in examples/pom.xml); it does nothing
# when a browser is already there. Argument: the -Dringtail.chromium path, if any.
set -euo pipefail

for browser in "${1:-}" "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
  if [ -n "$browser" ] && [ -x "$browser" ]; then
    exit 0
  fi
done

fail() {
  echo "ringtail: the dashboard's browser test needs Chromium, and it could not be installed: $1." >&2
  echo "ringtail: install Chromium yourself and run again (Debian/Ubuntu: apt-get install chromium)," >&2
  echo "ringtail: or pass -Dringtail.chromium=/path/to/chromium." >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "this machine has no apt-get (not Debian or Ubuntu)"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  fail "not running as root, and sudo is not installed"
fi

echo "ringtail: no Chromium found; installing Debian's chromium package for the dashboard's browser test (${as_root[*]:-as root} apt-get install chromium)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
  || fail "apt-get update failed"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null \
  || fail "apt-get install chromium failed"
[ -x /usr/bin/chromium ] || fail "apt-get install chromium left no /usr/bin/chromium"
echo "ringtail: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
