# cinelog's container image: docs/deployment.md. Two stages: `build` compiles the native SQLite driver
# and the TypeScript, `runtime` holds Node.js, the compiled server and the production dependencies only.

FROM node:24-bookworm-slim AS build
# better-sqlite3 is compiled here, against the runtime's own headers minus Node 24.19's ObjectWrap
# cleanup hook, which makes better-sqlite3 12 abort the process when a statement is garbage collected
# (scripts/node-headers.sh; docs/deployment.md, "Node.js versions").
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY scripts/node-headers.sh scripts/
RUN scripts/node-headers.sh "$(dirname "$(dirname "$(command -v node)")")" /opt/node-headers
COPY package.json package-lock.json ./
# Install scripts wait until the sources are there (`prepare` builds them). esbuild needs its own;
# better-sqlite3 is compiled from its sources by npm's node-gyp, never downloaded (node-gyp takes
# npm_config_nodedir over --nodedir). The last line fails the build if the addon still imports
# RemoveEnvironmentCleanupHook, which only the hooked ObjectWrap calls (scripts/sqlite-addon.js).
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild esbuild \
 && cd node_modules/better-sqlite3 \
 && npm_config_nodedir=/opt/node-headers node "$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js" \
      rebuild --release \
 && ! grep -q RemoveEnvironmentCleanupHook build/Release/better_sqlite3.node
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle.js scripts/
COPY bin bin
COPY src src
# npm prune leaves the emptied scope folders of dev dependencies (@biomejs, @esbuild): removed too.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && find node_modules -mindepth 1 -maxdepth 1 -type d -empty -delete \
 && mv node_modules/better-sqlite3/build/Release/better_sqlite3.node /tmp/ \
 && rm -rf node_modules/better-sqlite3/build node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && mkdir -p node_modules/better-sqlite3/build/Release \
 && mv /tmp/better_sqlite3.node node_modules/better-sqlite3/build/Release/ \
 && mkdir -p /out/src/modules/web \
 && cp -R src/modules/web/views src/modules/web/assets /out/src/modules/web/

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/cinelog.sqlite \
    IMAGE_CACHE_DIR=/data/images
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY --from=build /src/bin bin
# Templates and assets only: the web app reads them from src/modules/web at run time.
COPY --from=build /out/src src
# `cinelog <command>` in the container (`docker exec <name> cinelog user create ...`), as the same user
# and with the same environment as the server.
RUN ln -s /app/bin/cinelog.js /usr/local/bin/cinelog \
 && mkdir -p /data \
 && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node.js is PID 1 (the base image's entrypoint execs it): SIGTERM (docker stop) lets in-flight
# requests finish, closes the database and exits 0 (src/main.ts).
CMD ["node", "--v8-pool-size=2", "--max-semi-space-size=4", "--max-old-space-size=512", "dist/main.js"]
