#!/bin/sh
# As upstream's entry point: a server started without a config file listens to every address of
# its container (protected mode would refuse every client but loopback's).
if [ "$1" = redis-server ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
