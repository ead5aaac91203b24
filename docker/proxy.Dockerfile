# syntax=docker/dockerfile:1.7
# The standalone session proxy (apps/proxy), serving the demo app (apps/demo) on the same origin.
#
#   docker build -f docker/proxy.Dockerfile -t svc-proxy .    (from the repository root)
#
# Needs SVC_API_KEY and SVC_API_URL; PROXY_STATIC_DIR=/app/demo serves the demo (unset: API only).
# scripts/build-image-steps.mjs replays this file's steps without Docker, like the API's.

ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
# image-only: pnpm from npm; corepack cannot verify pnpm's signatures everywhere.
RUN npm install -g pnpm@12.21.0
WORKDIR /src
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
# pnpm applies the dependency patches (patches/, named in pnpm-workspace.yaml) as it fetches.
COPY patches ./patches/
RUN --mount=type=cache,id=svc-pnpm-store,target=/root/.local/share/pnpm/store pnpm fetch --prefer-offline
COPY . .
# Native addons of other packages are not needed by the proxy: their install scripts are skipped.
RUN --mount=type=cache,id=svc-pnpm-store,target=/root/.local/share/pnpm/store pnpm install --frozen-lockfile --prefer-offline --ignore-scripts
# The proxy and the SDK it uses, built as published (dist/), and manifests pointing at it.
RUN node scripts/build-packages.mjs @svc/sdk @svc/proxy
RUN node scripts/build-runtime.mjs manifests @svc/sdk @svc/proxy
RUN --mount=type=cache,id=svc-pnpm-store,target=/root/.local/share/pnpm/store pnpm deploy --filter @svc/proxy --prod --prefer-offline --ignore-scripts ../out
# Source maps: third-party ones go, the service's lose their sources (scripts/build-runtime.mjs says why).
RUN node scripts/build-runtime.mjs maps ../out
# The demo is static files (its client bundle is committed): no build step, no dependencies.
RUN cp -R apps/demo ../out/demo && rm -rf ../out/demo/test ../out/demo/node_modules ../out/demo/screenshots ../out/demo/package.json

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PROXY_PORT=3001
WORKDIR /app
COPY --from=build /out ./
USER node
EXPOSE 3001
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PROXY_PORT || 3001) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The `svc-proxy` bin of @svc/proxy.
# Source maps are opt-in (NODE_OPTIONS=--enable-source-maps), as in the API's image.
CMD ["node", "dist/main.js"]
