# Multi-stage: build with dev dependencies, run with production dependencies only, as a
# non-root user. (Docker cannot run on the machine this was written on: the compose file is
# validated by test/e2e/compose-file.e2e-spec.ts, not by running it.)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:20-bookworm-slim
# two malloc arenas keep RSS flat under load (docs/operations/cluster.md, bench/SOAK.md)
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/.data MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY db ./db
# the selection lib's data files (vocabularies, word vectors) are read from libs/, not dist/
COPY libs/selection/data ./libs/selection/data
RUN mkdir -p /app/.data && chown -R node:node /app/.data
USER node
EXPOSE 3000
HEALTHCHECK --interval=5s --timeout=2s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/gateway/src/main.js"]
