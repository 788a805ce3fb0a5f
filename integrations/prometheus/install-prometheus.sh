#!/usr/bin/env bash
# Installs Debian's prometheus package for the module's tests against a real Prometheus server
# (PrometheusServer starts its own on a free loopback port). `mvn verify` runs this before the
# module's tests when /usr/bin/prometheus is missing (profile install-prometheus in pom.xml); it
# does nothing when a server binary is already there. Argument: the -Dringtail.prometheus path.
set -euo pipefail
exec bash "$(dirname "$0")/../../testkit/install-debian-package.sh" prometheus /usr/bin/prometheus \
  "the Prometheus tests" ringtail.prometheus \
  "${1:-}" "${PROMETHEUS:-}" /usr/local/bin/prometheus
