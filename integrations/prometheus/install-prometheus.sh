#!/usr/bin/env bash
# Installs Debian's prometheus package for the module's tests against a real Prometheus server
# (PrometheusServer starts its own on a free loopback port). `mvn verify` runs this before the
# module's tests when /usr/bin/prometheus is missing (profile install-prometheus in pom.xml); it
# does nothing when a server binary is already there. Argument: the -Dringtail.prometheus path.
set -euo pipefail

for server in "${1:-}" "${PROMETHEUS:-}" /usr/bin/prometheus /usr/local/bin/prometheus; do
  if [ -n "$server" ] && [ -x "$server" ]; then
    exit 0
  fi
done

fail() {
  echo "ringtail: the Prometheus tests need a prometheus server binary, and it could not be installed: $1." >&2
  echo "ringtail: install it yourself and run again (Debian/Ubuntu: apt-get install prometheus)," >&2
  echo "ringtail: or pass -Dringtail.prometheus=/path/to/prometheus." >&2
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

echo "ringtail: no prometheus found; installing Debian's prometheus package for the Prometheus tests (${as_root[*]:-as root} apt-get install prometheus)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
  || fail "apt-get update failed"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null \
  || fail "apt-get install prometheus failed"
[ -x /usr/bin/prometheus ] || fail "apt-get install prometheus left no /usr/bin/prometheus"
# the package starts a system service on port 9090 where it can; the tests use their own servers
echo "ringtail: installed $(/usr/bin/prometheus --version 2>/dev/null | head -n 1 || echo prometheus)"
