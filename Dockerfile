# syntax=docker/dockerfile:1
# Herald's compiled output on Node, run as the image's non-root `node` user (docs/deploy.md).
# Stage 1 compiles every workspace to dist/; stage 2 installs the production dependencies beside
# the compiled packages alone; the last stage copies that and nothing else.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /herald
COPY . .
# --ignore-scripts: no dependency's install script is needed to compile (the one that builds a
# native module is the Bluesky tests' SQLite driver, a dev dependency).
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm run build \
 && mkdir -p /out \
 && cp package.json package-lock.json .npmrc /out/ \
 && for dir in packages/*/; do \
      mkdir -p "/out/$dir" && cp "$dir/package.json" "/out/$dir"; \
      if [ -d "$dir/dist" ]; then cp -R "$dir/dist" "/out/$dir"; fi; \
    done \
 && rm -f /out/packages/*/dist/*.tsbuildinfo

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /herald
COPY --from=build /out/ ./
# The bundled ffprobe (@ffprobe-installer) ships executable by its owner only; its install script
# (skipped here) would only chmod it, so it is opened to every user: the server runs as `node`.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && chmod 0755 node_modules/@ffprobe-installer/*/ffprobe \
 && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    HERALD_DATA_DIR=/var/lib/herald
WORKDIR /herald
COPY --from=dependencies /herald ./
RUN mkdir -p /var/lib/herald && chown node:node /var/lib/herald
USER node
VOLUME ["/var/lib/herald"]
EXPOSE 8080
# GET /health answers 200 (ok, or degraded while no worker has beaten yet) whenever the database
# answers, 503 when it does not. Node's own fetch: the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((reply) => process.exit(reply.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "packages/app/dist/herald.js"]
CMD ["serve"]
