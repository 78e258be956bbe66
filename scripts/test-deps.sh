#!/usr/bin/env bash
# `npm test`'s first step: the programs some tests run for real, from Debian's packages.
#   redis-server                     shared rate limits (test/access/redis.test.ts)
#   chromium                         the /docs page in a browser (test/http/docs-browser.test.ts)
#   protoc, python3-grpcio/-protobuf a Python client on Triton's own .proto (test/grpc/triton-proto.test.ts)
#   podman, runc, debootstrap        the container image built and run (test/container/image.test.ts)
# Those tests fail rather than skip when a program is missing, so that a missing one is seen here,
# at once, and not as a failure eight minutes in. What is missing is installed with apt-get when
# that can be done without asking (root, or sudo with no password); otherwise this stops with
# the one command that installs it. Nothing is installed when everything is there.
set -euo pipefail

PACKAGES=()
command -v redis-server >/dev/null 2>&1 || PACKAGES+=(redis-server)
command -v chromium >/dev/null 2>&1 || PACKAGES+=(chromium)
command -v protoc >/dev/null 2>&1 || PACKAGES+=(protobuf-compiler)
# Debian's Python, where apt-get puts python3-grpcio (another python3 may come first on PATH).
/usr/bin/python3 -c 'import grpc' >/dev/null 2>&1 || PACKAGES+=(python3-grpcio)
/usr/bin/python3 -c 'import google.protobuf' >/dev/null 2>&1 || PACKAGES+=(python3-protobuf)
command -v podman >/dev/null 2>&1 || PACKAGES+=(podman)
# Podman's default runtime (crun) fails on some hosts' cgroups: the test runs it with runc.
command -v runc >/dev/null 2>&1 || PACKAGES+=(runc)
# sbin: not on every root's PATH.
command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || PACKAGES+=(debootstrap)

[ ${#PACKAGES[@]} -eq 0 ] && exit 0

COMMAND="apt-get update && apt-get install -y ${PACKAGES[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "npm test needs ${PACKAGES[*]} (Debian's package names), and this machine has no apt-get: install them, then run npm test again" >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  echo "npm test needs ${PACKAGES[*]}; install them with:" >&2
  echo "  sudo sh -c '$COMMAND'" >&2
  exit 1
fi
echo "npm test: installing ${PACKAGES[*]} (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
# Stop here if any is still missing: those tests would fail anyway, later and less clearly.
command -v redis-server >/dev/null && command -v chromium >/dev/null && command -v protoc >/dev/null \
  && command -v podman >/dev/null && command -v runc >/dev/null && [ -x /usr/sbin/debootstrap ] \
  && /usr/bin/python3 -c 'import grpc, google.protobuf' \
  || { echo "npm test: apt-get ran but ${PACKAGES[*]} is still not all there" >&2; exit 1; }
