# Stand-in for the Redis image the compose file names (infra/local-images.sh): Debian bookworm's
# redis-server and redis-cli, run as the `redis` user in /data, as upstream's image does.
FROM switchyard-local/bookworm:base
RUN apt-get update -q && apt-get install -y -q --no-install-recommends redis-server redis-tools \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
