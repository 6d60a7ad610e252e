#!/usr/bin/env bash
# A Docker engine for the container tests, as the tests start their own Redis: uses the one
# DOCKER_HOST (or the default socket) names when it answers; otherwise installs Debian's docker.io,
# docker-compose and debootstrap when missing and starts a dockerd of this checkout (data in
# .data/docker, its own socket, so it never takes another engine's place). Prints the DOCKER_HOST
# to use as its last line of stdout; progress and the reason it cannot go to stderr (exit 1).
#
#   DOCKER_HOST=$(infra/docker-engine.sh)   # start or reuse
#   infra/docker-engine.sh stop            # stop the dockerd this checkout started, if any
#
# `docker compose` is Docker's compose plugin; where the machine has none (Debian bookworm packages
# only docker-compose 1.29), a plugin that hands `docker compose …` to `docker-compose …` is
# installed, so that the README's command runs as written.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD/.data/docker
sock=$root/docker.sock
pidfile=$root/dockerd.pid
say() { echo "docker-engine: $*" >&2; }

stop_engine() {
  [[ -f $pidfile ]] || return 0
  local pid
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  rm -f "$pidfile"
}

if [[ ${1:-} == stop ]]; then
  stop_engine
  exit 0
fi

answers() { DOCKER_HOST=$1 timeout 20 docker info >/dev/null 2>&1; }

install_packages() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if ! command -v apt-get >/dev/null; then
    say "no Docker engine, and no apt-get to install ${missing[*]} with"
    return 1
  fi
  say "installing ${missing[*]} from Debian's packages"
  # apt's lists may be old or absent on a fresh machine.
  apt-get update -q >&2 || return 1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || return 1
}

install_compose_plugin() {
  DOCKER_HOST=$1 docker compose version >/dev/null 2>&1 && return 0
  command -v docker-compose >/dev/null || return 1
  local dir=/usr/local/lib/docker/cli-plugins
  mkdir -p "$dir" && install -m 0755 infra/compose-plugin.sh "$dir/docker-compose"
  say "docker compose hands over to $(docker-compose version --short 2>/dev/null || echo docker-compose)"
}

start_engine() {
  mkdir -p "$root"
  stop_engine
  # The exec root holds containerd's sockets, whose paths must stay short.
  local exec_root
  exec_root=/run/switchyard-docker-$(echo "$root" | md5sum | cut -c1-8)
  say "starting dockerd (data in $root)"
  setsid dockerd --data-root "$root/data" --exec-root "$exec_root" --host "unix://$sock" --pidfile "$pidfile" \
    >"$root/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    answers "unix://$sock" && return 0
    [[ -f $pidfile ]] || sleep 0.5
    sleep 0.5
  done
  say "dockerd did not answer within 60 s; the end of $root/dockerd.log:"
  tail -15 "$root/dockerd.log" >&2
  return 1
}

host=${DOCKER_HOST:-unix:///var/run/docker.sock}
if ! answers "$host"; then
  host=unix://$sock
  if ! answers "$host"; then
    install_packages || exit 1
    start_engine || exit 1
  fi
fi
install_compose_plugin "$host" || { say "no docker compose, and no docker-compose to hand it to"; exit 1; }
echo "$host"
