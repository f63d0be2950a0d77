# One image for every process of the distributed mode; docker-compose.yml picks the process with `command:`
# (node command-api/main.ts, query-api/main.ts, projections/main.ts, webhook-dispatcher/main.ts, or
# cli/admin.ts). Node runs the TypeScript sources directly (type stripping): there is no build step.
FROM node:26-slim

ENV NODE_ENV=production
WORKDIR /app

# Production dependencies only. The "node" dev dependency (the pinned Node binary of a development
# checkout) is left out: the image's own Node 26 runs the service.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The sources stay root-owned, so the service cannot change its own code. .dockerignore keeps out
# node_modules, data, tests, benchmarks and git.
COPY . .

# /keys is where docker-compose.yml mounts the named volume `keys`: a named volume starts as a copy of
# the image's directory, owner and mode included, so `keys:init /keys` runs as node and every service
# (also node) reads the keys. /app/data is the embedded default's DATA_DIR, for the default command.
RUN mkdir -p /keys /app/data && chown node:node /keys /app/data && chmod 0700 /keys /app/data

# node, by its uid (1000 in the node images): a runtime that checks runAsNonRoot needs a number.
USER 1000:1000
ENV HOST=0.0.0.0
EXPOSE 3000 3001 3002 3003 3004

# The embedded default (one process, port 3000, data in /app/data); the compose file overrides it.
CMD ["node", "embedded/main.ts"]
