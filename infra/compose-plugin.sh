#!/bin/sh
# A Docker CLI plugin that hands `docker compose …` to docker-compose (1.29, the one Debian
# bookworm packages), installed by infra/docker-engine.sh where Docker's own compose plugin is
# missing. The CLI calls a plugin with its own name first: `docker-compose compose up …`.
if [ "$1" = docker-cli-plugin-metadata ]; then
  printf '{"SchemaVersion":"0.1.0","Vendor":"Switchyard","Version":"%s","ShortDescription":"docker compose through docker-compose"}\n' \
    "$(docker-compose version --short 2>/dev/null)"
  exit 0
fi
[ "$1" = compose ] && shift
exec docker-compose "$@"
