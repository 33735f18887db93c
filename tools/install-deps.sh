#!/bin/sh
# Installs what `make` needs to build and test tirx-c, when it is missing.
# Uses apt-get when run as root; otherwise says what to install.
set -eu
need=""
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
command -v flex >/dev/null 2>&1 || need="$need flex"
command -v bison >/dev/null 2>&1 || need="$need bison"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v python3 >/dev/null 2>&1 || need="$need python3"
[ -f /usr/include/criterion/criterion.h ] || need="$need libcriterion-dev"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: installing$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $need >/dev/null
else
  echo "install-deps: missing:$need (install them, or run make as root on Debian/Ubuntu)" >&2
  exit 1
fi
