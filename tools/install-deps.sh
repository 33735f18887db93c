#!/bin/sh
# Installs what `make` needs to build and test tirx-c, when it is missing.
# Uses apt-get when run as root; otherwise says what to install. clang and
# its sanitizer runtimes (make test's ThreadSanitizer and fuzzing steps,
# docs/fuzzing.md) are optional: when they cannot be installed those steps
# are skipped, and the rest of make test still runs.
set -eu
need=""
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
command -v flex >/dev/null 2>&1 || need="$need flex"
command -v bison >/dev/null 2>&1 || need="$need bison"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v python3 >/dev/null 2>&1 || need="$need python3"
[ -f /usr/include/criterion/criterion.h ] || need="$need libcriterion-dev"
optional=""
command -v clang >/dev/null 2>&1 || optional="$optional clang"
# libFuzzer and the TSan runtime (Debian 12's clang is clang-14).
if command -v dpkg >/dev/null 2>&1 && ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
  optional="$optional libclang-rt-14-dev"
fi
[ -z "$need$optional" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: installing$need$optional"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  [ -z "$need" ] || apt-get install -y -qq --no-install-recommends $need >/dev/null
  # shellcheck disable=SC2086
  [ -z "$optional" ] || apt-get install -y -qq --no-install-recommends $optional >/dev/null ||
    echo "install-deps: could not install$optional; make test skips TSan and fuzzing" >&2
elif [ -n "$need" ]; then
  echo "install-deps: missing:$need (install them, or run make as root on Debian/Ubuntu)" >&2
  exit 1
else
  echo "install-deps: optional, for TSan and fuzzing:$optional (make test skips those steps)" >&2
fi
