# One image for the API (the default command), the worker and the migration CLI; docker-compose.yml
# picks the entry point per service:
#   API:        node dist/apps/api/src/main.js                  (default CMD)
#   worker:     node --max-old-space-size=256 dist/apps/worker/src/main.js (its workflow bundle prebuilt)
#   migrations: node dist/libs/persistence/src/cli/migrate.js
#   API keys:   node dist/apps/api/src/cli/api-key.js create --user <id> --name <name>

# ---- build: every dependency, compile with swc, then drop the dev dependencies ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
# The manifests first, so the dependency layer is reused until they change. `npm install` at the locked
# versions rather than `npm ci`: package-lock.json lacks the optional native binaries of other platforms
# (@swc/core-darwin-*, @unrs/resolver-binding-*, ...), and npm ci rejects it as out of sync with package.json.
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
# `npm run build` compiles apps/ and libs/ with .swcrc (JSON files such as the search attributes are copied).
COPY .swcrc tsconfig.json ./
COPY apps ./apps
COPY libs ./libs
RUN npm run build \
 && test -f dist/apps/api/src/main.js \
 && test -f dist/apps/worker/src/main.js \
 && test -f dist/apps/worker/workflow-bundle.js \
 && test -f dist/libs/persistence/src/cli/migrate.js \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: the compiled code and the production dependencies, run as a non-root user ----
FROM node:24-bookworm-slim AS runtime
# tini as PID 1 forwards SIGTERM to node (the worker drains on it) and reaps zombies.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# Two malloc arenas, not eight per core: the worker's native threads otherwise each grow their own.
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
# Owned by root and only readable by the `node` user (uid 1000, from the base image): the app cannot
# rewrite its own code.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/apps/api/src/main.js"]
