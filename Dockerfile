# syntax=docker/dockerfile:1
# The production image: compiled JavaScript run by node itself (PID 1 gets SIGTERM and drains), runtime
# dependencies only, a non-root user. CI proves these same steps outside a container (.ci/run, step
# "production install"): scripts/production-layout.sh builds the same file set and scripts/smoke-start.mjs
# starts it.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# The npm workspaces (packages/*): their package.json files before `npm ci`, which links them.
COPY package.json package-lock.json ./
COPY packages/contract-registry/package.json ./packages/contract-registry/
COPY packages/contract-gate/package.json ./packages/contract-gate/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/contract-registry ./packages/contract-registry
COPY src ./src
COPY generated ./generated
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
WORKDIR /app
# The gate (packages/contract-gate) is a development tool: only its package.json, so that npm ci sees the
# workspace; its tools are its devDependencies, left out here. The registry is the server's, compiled.
COPY package.json package-lock.json ./
COPY packages/contract-registry/package.json ./packages/contract-registry/
COPY packages/contract-gate/package.json ./packages/contract-gate/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/contract-registry/dist ./packages/contract-registry/dist
COPY contracts ./contracts
COPY generated ./generated
COPY src/store/migrations ./src/store/migrations
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080 50051
VOLUME ["/data"]
# Liveness only: readiness (/health/ready) is for the orchestrator to ask separately.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The --import entry registers OpenTelemetry's loader hook before the app's modules load; it does nothing
# unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operating.md, "Tracing").
ENTRYPOINT ["node", "--import", "./dist/src/observability/tracing-register.js", "dist/src/main.js"]
