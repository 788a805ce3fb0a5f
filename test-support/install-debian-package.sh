#!/usr/bin/env bash
# Installs a Debian package a test needs and Maven cannot bring (Chromium for the dashboard's
# browser test, Prometheus for the Prometheus tests), where none of the given binaries exists.
# Usage: install-debian-package.sh PACKAGE BINARY WHAT PROPERTY [CANDIDATE...]
#   PACKAGE    the Debian package (chromium, prometheus)
#   BINARY     the path the package installs the binary at
#   WHAT       what needs it, for the messages
#   PROPERTY   the -D property that points the tests at another binary, for the messages
#   CANDIDATE  binaries that make installing unnecessary (the property's value, others); empty
#              ones are skipped
set -euo pipefail

package=$1 binary=$2 what=$3 property=$4
shift 4
for candidate in "$@" "$binary"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    exit 0
  fi
done

fail() {
  echo "ringtail: $what needs $package, and it could not be installed: $1." >&2
  echo "ringtail: install it yourself and run again (Debian/Ubuntu: apt-get install $package)," >&2
  echo "ringtail: or pass -D$property=/path/to/$(basename "$binary")." >&2
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

echo "ringtail: no $package found; installing Debian's $package package for $what (${as_root[*]:-as root} apt-get install $package)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
  || fail "apt-get update failed"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" >/dev/null \
  || fail "apt-get install $package failed"
[ -x "$binary" ] || fail "apt-get install $package left no $binary"
echo "ringtail: installed $("$binary" --version 2>/dev/null | head -n 1 || echo "$package")"
