#!/usr/bin/env bash
# Installs the system packages the local services and the virtualenv need, when missing:
# a JDK (Kafka), Maven (fetches Kafka's jars), redis-server, python3-venv, and Chromium with its
# WebDriver (the dashboard's browser test drives Debian's chromium through Selenium), and openssl
# (the secure-transport tests make their own CA and certificates with it).
# Does nothing, quickly, on a machine that has them all.
set -euo pipefail

missing=()
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || missing+=(maven)
command -v make >/dev/null || missing+=(make)
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v openssl >/dev/null || missing+=(openssl)

if ((${#missing[@]})); then
  [[ "$(id -u)" == 0 ]] || { echo "system-deps: missing ${missing[*]}; install them (as root: apt-get install -y ${missing[*]})" >&2; exit 1; }
  echo "system-deps: installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# redis.sh knows how to install redis-server without Debian starting its own daemon.
"$(dirname "${BASH_SOURCE[0]}")/redis.sh" install
