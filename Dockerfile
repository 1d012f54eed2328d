# Tickflow: one image for the console and the workers, on an external PostgreSQL
# (docs/operations.md "Containers"; scripts/deploy/compose.yaml runs a console and three workers).
#   docker build -t tickflow .
#   console: docker run -e DATABASE_URL=… -e TICKFLOW_START_WORKER=0 -p 3000:3000 tickflow
#   worker:  docker run -e DATABASE_URL=… tickflow npm run worker
# Dockerfile comments stand on lines of their own: text after an instruction is part of it.
FROM node:20-bookworm-slim

# The node image's unprivileged user owns the checkout and the data directory; nothing runs as root.
RUN mkdir -p /srv/tickflow /var/lib/tickflow && chown node:node /srv/tickflow /var/lib/tickflow
WORKDIR /srv/tickflow
USER node

# Dependencies first, so that a source change reuses this layer (npm ci runs prisma generate).
COPY --chown=node:node package.json package-lock.json prisma.config.ts ./
COPY --chown=node:node scripts/prisma-generate.mjs scripts/
COPY --chown=node:node prisma ./prisma
RUN npm ci --no-audit --no-fund

# Build the console and the worker into the image: `npm start` and `npm run worker` then find
# current builds and start at once, and a container never writes into its checkout.
COPY --chown=node:node . .
RUN npx next build && npm run build:worker

# TICKFLOW_DATA_DIR: where a first start writes the generated admin password (mount a volume
# there to keep it, or set TICKFLOW_ADMIN_EMAIL / TICKFLOW_ADMIN_PASSWORD).
ENV NODE_ENV=production PORT=3000 TICKFLOW_SHUTDOWN_GRACE_MS=30000 TICKFLOW_DATA_DIR=/var/lib/tickflow NEXT_TELEMETRY_DISABLED=1
EXPOSE 3000

# The console's own health route (200 while it reaches its database, 503 otherwise). A worker
# container has no console: compose.yaml turns this check off for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# npm is PID 1: `docker stop` sends it SIGTERM, it passes the signal on and Tickflow stops in
# order (worker drain, console, nothing else to stop: the database is external).
CMD ["npm", "start"]
