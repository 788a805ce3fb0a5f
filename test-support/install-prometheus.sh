#!/usr/bin/env bash
# Installs Debian's prometheus package for the tests against a real Prometheus server
# (PrometheusServer starts its own on a free loopback port): integrations/prometheus and
# examples/spring-boot. `mvn verify` runs this before those modules' tests when
# /usr/bin/prometheus is missing (their profile install-prometheus); it does nothing when a server
# binary is already there. Argument: the -Dringtail.prometheus path.
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-package.sh" prometheus /usr/bin/prometheus \
  "the Prometheus tests" ringtail.prometheus \
  "${1:-}" "${PROMETHEUS:-}" /usr/local/bin/prometheus
